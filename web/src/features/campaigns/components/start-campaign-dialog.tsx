import type { Campaign } from '@masivo/contract/campaigns';
import type { Preflight } from '@masivo/contract/preflight';
import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useCampaignPreflight } from '../api/get-preflight';
import { useStartCampaign } from '../api/start-campaign';
import { maySendDirectly } from '../api/approvals';
import { useMeQuery } from '@/lib/use-member';
import { describeSendingHours } from './campaign-hours-card';
import { useTriggerText } from './automation-card';
import { budgetText, costText, duration } from './preflight-panel';

/** "2.036": people counts always grouped, as an operator reads them (es-ES leaves 4 digits ungrouped). */
const people = new Intl.NumberFormat('es-ES', { useGrouping: 'always' });

/** What the confirm button says: the action and how many people it reaches ("Enviar a 2.036 personas"). */
export const sendLabel = (count: number) => `Enviar a ${people.format(count)} ${count === 1 ? 'persona' : 'personas'}`;

/**
 * Sending cannot be undone, so «Iniciar» (detail) and ▷ (list) first ask here. A campaign that
 * never started (draft, scheduled, or paused before its first start) shows the pre-flight in
 * short: who will be attempted, who is excluded and why, the cost, the estimated end, the
 * sending hours and Meta's daily limit. Resuming a paused campaign (its audience already frozen)
 * asks more lightly: how many are still pending and the hours. Focus starts on «Cancelar».
 */
export function StartCampaignDialog({ campaign: c, open, onClose }: { campaign: Campaign; open: boolean; onClose: () => void }) {
  const resume = c.started_at !== null;
  // An automatic campaign has no audience to count: it is switched on, and each lead that
  // enters the stage from then on gets the message when its time comes.
  const automatic = c.audience_kind === 'automatic';
  const trigger = useTriggerText(c);
  // Whoever may only ask (an Editor) sends the request: another member approves it.
  const asks = !maySendDirectly(useMeQuery().data);
  const start = useStartCampaign(asks);
  // «Iniciar» sends now: a scheduled campaign's end is estimated from now, not from its date.
  // Off once the start is on its way, so the refresh does not recompute a started campaign.
  const preflight = useCampaignPreflight(c.id, open && !resume && !automatic && start.isIdle, true);
  const count = resume ? c.pending_count : preflight.data?.attempted;
  const title = automatic ? (resume ? `¿Reanudar «${c.name}»?` : `¿Activar «${c.name}»?`) : resume ? `¿Reanudar «${c.name}»?` : `¿Enviar «${c.name}»?`;
  const description = automatic
    ? resume
      ? 'Se envían los eventos que llegaron mientras estaba pausada (los de más de 24 h de retraso se omiten como vencidos) y los que lleguen desde ahora.'
      : 'Desde ahora, cada lead que entre en la etapa recibe la plantilla cuando le toque. La lista negra, las bajas, el límite de frecuencia, el horario y el límite de Meta se aplican en el momento de enviar. Un mensaje enviado no se puede retirar.'
    : resume
    ? 'El envío sigue con las personas que aún no lo recibieron.'
    : c.status === 'scheduled' && c.scheduled_at
      ? `Estaba programada para el ${formatDateTime(c.scheduled_at)}: se envía ahora. Un mensaje enviado no se puede retirar.`
      : 'Un mensaje enviado no se puede retirar.';
  const fullDescription = asks ? `${description} Otro miembro debe aprobar el envío antes de que salga.` : description;
  const confirm = () => start.mutate(c.id, { onSuccess: onClose });

  return (
    <Dialog open={open} onOpenChange={(next) => !next && onClose()} title={title} description={fullDescription}>
      <div className="space-y-4 text-sm text-gray-700" data-testid="start-confirmation">
        {automatic ? (
          <dl className="space-y-2">
            <Row label="Disparador">{trigger}</Row>
            <Row label="Horario de envío">{describeSendingHours(c.sending_hours ?? null)}</Row>
          </dl>
        ) : resume ? (
          <dl className="space-y-2">
            <Row label="Pendientes">{people.format(c.pending_count)}</Row>
            <Row label="Horario de envío">{describeSendingHours(c.sending_hours ?? null)}</Row>
          </dl>
        ) : preflight.error ? (
          <p role="alert" className="text-red-700">
            {errorMessage(preflight.error, 'Error al calcular el pre-vuelo')}
          </p>
        ) : !preflight.data ? (
          <p role="status">Calculando a quién se enviará...</p>
        ) : (
          <PreflightSummary p={preflight.data} hours={describeSendingHours(c.sending_hours ?? null)} />
        )}
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose} data-autofocus>
            Cancelar
          </Button>
          {automatic ? (
            <Button variant="success" onClick={confirm} disabled={start.isPending}>
              {start.isPending ? 'Activando...' : asks ? 'Solicitar aprobación' : resume ? 'Reanudar' : 'Activar campaña automática'}
            </Button>
          ) : (
            <Button variant="success" onClick={confirm} disabled={count === undefined || count === 0 || start.isPending}>
              {start.isPending ? 'Enviando...' : count === undefined ? 'Calculando...' : asks ? 'Solicitar aprobación' : sendLabel(count)}
            </Button>
          )}
        </div>
      </div>
    </Dialog>
  );
}

function PreflightSummary({ p, hours }: { p: Preflight; hours: string }) {
  const excluded = p.excluded.filter((e) => e.count > 0);
  return (
    <>
      {p.template_problem && <p className="text-red-700">Plantilla no apta: {p.template_problem}</p>}
      {p.attempted === 0 && <p className="text-red-700">Nadie recibiría este mensaje: revisa los filtros y las exclusiones.</p>}
      <dl className="space-y-2">
        <Row label="Se intentará enviar a" testId="confirm-attempted">
          {people.format(p.attempted)} de {people.format(p.matched)}
        </Row>
        <Row label="Excluidos" testId="confirm-excluded">
          {excluded.length === 0 ? (
            'Nadie'
          ) : (
            <ul>
              {excluded.map((e) => (
                <li key={e.reason}>
                  {e.label.charAt(0).toUpperCase() + e.label.slice(1)}: {people.format(e.count)}
                </li>
              ))}
            </ul>
          )}
        </Row>
        <Row label="Costo estimado (USD)" testId="confirm-cost">
          {costText(p)}
        </Row>
        <Row label="Fin estimado" testId="confirm-eta">
          {p.attempted === 0 ? '—' : `${formatDateTime(p.eta.finish_at)} (${duration(p.eta.sending_seconds)} de envío)`}
        </Row>
        <Row label="Horario de envío" testId="confirm-hours">
          {hours}
        </Row>
        <Row label="Límite diario" testId="confirm-budget">
          {budgetText(p.budget)}
          {p.budget.waves > 1 && <span className="block font-medium text-amber-800">Se enviará en {p.budget.waves} días</span>}
        </Row>
      </dl>
    </>
  );
}

function Row({ label, testId, children }: { label: string; testId?: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-0.5 sm:grid-cols-[10rem_minmax(0,1fr)] sm:gap-3">
      <dt className="text-xs text-gray-600 sm:text-sm">{label}</dt>
      <dd className="font-medium text-gray-900" data-testid={testId}>
        {children}
      </dd>
    </div>
  );
}
