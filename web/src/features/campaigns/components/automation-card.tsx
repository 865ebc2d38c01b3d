import type { Campaign } from '@masivo/contract/campaigns';
import { TRIGGER_KIND_LABELS } from '@masivo/contract/automation-trigger';
import { Card } from '@/components/ui/card';
import { useKommoPipelines } from '@/api/kommo-writeback';
import { formatDateTime, formatNumber } from '@/lib/format';

function delayText(seconds: number): string {
  if (seconds === 0) return 'sin demora';
  if (seconds % 86_400 === 0) return `${seconds / 86_400} día(s) después`;
  if (seconds % 3600 === 0) return `${seconds / 3600} hora(s) después`;
  return `${Math.round(seconds / 60)} minuto(s) después`;
}

/**
 * «Campaña automática» on the detail screen: the trigger, events received, sent, waiting (with the
 * next due time) and skipped by reason. Replies, cost, charts and the results export are the
 * campaign's usual cards below.
 */
/**
 * The trigger in words: «Entra en la etapa «Cotización enviada» (Embudo de ventas), 1 minuto(s)
 * después; …». Stage and pipeline by name once Kommo's pipelines are loaded (by id meanwhile, or
 * when the stage no longer exists in Kommo).
 */
export function useTriggerText(campaign: Campaign): string | null {
  const a = campaign.automation;
  const pipelines = useKommoPipelines(campaign.kommo_account_id ?? 0, Boolean(a && campaign.kommo_account_id));
  if (!a) return null;
  const pipeline = pipelines.data?.find((p) => p.id === a.trigger.pipeline_id);
  const stage = pipeline?.statuses.find((s) => s.id === a.trigger.status_id);
  const where = stage && pipeline ? `«${stage.name}» (${pipeline.name})` : `(etapa ${a.trigger.status_id})`;
  const reentry = a.trigger.reentry_days > 0 ? `; sin repetir por reingreso durante ${a.trigger.reentry_days} días` : '';
  return `${TRIGGER_KIND_LABELS[a.trigger.on]} ${where}, ${delayText(a.trigger.delay_seconds)}${reentry}.`;
}

export function AutomationCard({ campaign }: { campaign: Campaign }) {
  const a = campaign.automation;
  const trigger = useTriggerText(campaign);
  if (!a) return null;
  return (
    <Card className="p-4 sm:p-6" aria-labelledby="automation-title">
      <h2 id="automation-title" className="text-lg font-semibold text-gray-900">
        Campaña automática
      </h2>
      <p className="mt-1 text-sm text-gray-600">
        {trigger}
      </p>
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
        <Figure label="Eventos recibidos" value={a.events_received} />
        <Figure label="Enviados" value={campaign.messages_sent} />
        <Figure label="Programados" value={a.waiting} />
        <Figure label="Omitidos" value={campaign.skipped_count} />
      </dl>
      {a.next_due_at && <p className="mt-3 text-sm text-gray-700">Próximo envío programado para {formatDateTime(a.next_due_at)}</p>}
      {a.skipped_by_reason.length > 0 && (
        <div className="mt-4">
          <h3 className="text-sm font-medium text-gray-900">Omitidos por motivo</h3>
          <ul className="mt-2 space-y-1 text-sm text-gray-700">
            {a.skipped_by_reason.map((s) => (
              <li key={s.reason}>
                {s.reason}: <span className="font-medium">{formatNumber(s.count)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </Card>
  );
}

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <div>
      <dt className="text-sm text-gray-600">{label}</dt>
      <dd className="text-2xl font-semibold text-gray-900">{formatNumber(value)}</dd>
    </div>
  );
}
