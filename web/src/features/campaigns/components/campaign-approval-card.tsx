import { APPROVAL_STATUS_LABELS, rejectCampaignSchema, type Campaign } from '@masivo/contract/campaigns';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog } from '@/components/ui/dialog';
import { Textarea } from '@/components/ui/field';
import { formatDateTime, formatNumber } from '@/lib/format';
import { mayDecide, useApproveCampaign, useRejectCampaign } from '../api/approvals';
import { useMeQuery } from '@/lib/use-member';

const usd = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * Two-person approval on the campaign's screen: who asked and when, what they asked to be
 * approved (the pre-flight's recipients and cost), until when, and, for a member who may decide
 * (not its creator nor the requester), «Aprobar» with an optional note and «Rechazar» with a
 * required reason. After a decision it shows the outcome (a rejection's reason above all).
 */
export function CampaignApprovalCard({ campaign: c }: { campaign: Campaign }) {
  const a = c.approval;
  const me = useMeQuery();
  const [dialog, setDialog] = useState<'approve' | 'reject' | null>(null);
  if (!a) return null;
  // A spent approval of a campaign that already went on is history, not something to act on.
  if (a.status === 'approved' && c.status !== 'pending_approval') return null;
  const pending = a.status === 'pending' && c.status === 'pending_approval';
  const canDecide = mayDecide(me.data, c);

  return (
    <Card className="p-6" data-testid="campaign-approval">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 className="text-lg font-semibold text-gray-900">
            {pending ? 'Pendiente de aprobación' : `Aprobación: ${APPROVAL_STATUS_LABELS[a.status].toLowerCase()}`}
          </h2>
          <p className="mt-1 text-sm text-gray-600">
            {a.kind === 'schedule' ? 'Programación' : 'Inicio'} solicitado por {a.requested_by_name ?? 'un miembro'} el {formatDateTime(a.requested_at)}
          </p>
        </div>
        {canDecide && (
          <div className="flex gap-2">
            <Button variant="success" onClick={() => setDialog('approve')}>
              Aprobar
            </Button>
            <Button variant="danger" onClick={() => setDialog('reject')}>
              Rechazar
            </Button>
          </div>
        )}
      </div>
      <dl className="mt-4 grid grid-cols-1 gap-3 text-sm sm:grid-cols-3">
        <Item label="Destinatarios a aprobar">{formatNumber(a.attempted)}</Item>
        <Item label="Costo estimado">{a.cost_usd === null ? '—' : usd.format(a.cost_usd)}</Item>
        <Item label={pending ? 'Vence' : 'Resuelta'}>
          {pending ? formatDateTime(a.expires_at) : a.decided_at ? `${formatDateTime(a.decided_at)}${a.decided_by_name ? ` por ${a.decided_by_name}` : ''}` : '—'}
        </Item>
      </dl>
      {a.note && (
        <p className="mt-3 text-sm text-gray-700">
          <span className="font-medium">{a.status === 'rejected' ? 'Motivo del rechazo' : 'Nota'}:</span> {a.note}
        </p>
      )}
      {pending && !canDecide && me.data && (
        <p className="mt-3 text-sm text-gray-500">Otro miembro con permiso de aprobación debe aprobarla o rechazarla; mientras tanto no se envía nada.</p>
      )}
      {dialog === 'approve' && <ApproveDialog campaign={c} onClose={() => setDialog(null)} />}
      {dialog === 'reject' && <RejectDialog campaign={c} onClose={() => setDialog(null)} />}
    </Card>
  );
}

function Item({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-gray-600">{label}</dt>
      <dd className="font-medium text-gray-900">{children}</dd>
    </div>
  );
}

function ApproveDialog({ campaign: c, onClose }: { campaign: Campaign; onClose: () => void }) {
  const approve = useApproveCampaign();
  const [note, setNote] = useState('');
  const then = c.approval?.kind === 'schedule' && c.scheduled_at ? `Se enviará el ${formatDateTime(c.scheduled_at)}.` : 'El envío empieza ahora.';
  return (
    <Dialog open onOpenChange={(next) => !next && onClose()} title={`¿Aprobar «${c.name}»?`} description={then}>
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          approve.mutate({ id: c.id, body: note.trim() ? { note: note.trim() } : {} }, { onSettled: onClose });
        }}
      >
        <Textarea label="Nota (opcional)" name="approval-note" rows={3} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose} data-autofocus>
            Cancelar
          </Button>
          <Button type="submit" variant="success" disabled={approve.isPending}>
            {approve.isPending ? 'Aprobando...' : 'Aprobar'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

function RejectDialog({ campaign: c, onClose }: { campaign: Campaign; onClose: () => void }) {
  const reject = useRejectCampaign();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | undefined>();
  return (
    <Dialog open onOpenChange={(next) => !next && onClose()} title={`¿Rechazar «${c.name}»?`} description="La campaña vuelve a borrador con tu motivo.">
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          // The contract's schema: the same Spanish message as the server's 400.
          const parsed = rejectCampaignSchema.safeParse({ reason });
          if (!parsed.success) return setError(parsed.error.issues[0]?.message);
          reject.mutate({ id: c.id, body: parsed.data }, { onSettled: onClose });
        }}
      >
        <Textarea
          label="Motivo del rechazo"
          name="reject-reason"
          required
          rows={3}
          maxLength={1000}
          value={reason}
          error={error}
          onChange={(e) => {
            setReason(e.target.value);
            setError(undefined);
          }}
        />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose} data-autofocus>
            Cancelar
          </Button>
          <Button type="submit" variant="danger" disabled={reject.isPending}>
            {reject.isPending ? 'Rechazando...' : 'Rechazar'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
