import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { FRESHNESS_SOURCE_LABELS } from '@masivo/contract/kommo-inbound';
import toast from 'react-hot-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useMember } from '@/lib/use-member';
import { useSetKeepFresh } from '../api/set-keep-fresh';

/**
 * «Mantener contactos al día» on the account card: the switch, and which source keeps the
 * contacts current between syncs (Kommo's webhooks, or the minute's catch-up), with the last
 * event and the error when there is one.
 */
export function KommoFreshness({ account }: { account: KommoAccount }) {
  const f = account.freshness;
  const member = useMember();
  const canEdit = member.can('connections.manage');
  const save = useSetKeepFresh();
  if (!f) return null;
  const id = `keep-fresh-${account.id}`;

  const onToggle = (keep: boolean) =>
    save.mutate(
      { id: account.id, keep_fresh: keep },
      {
        onSuccess: () => toast.success(keep ? 'Los contactos se mantendrán al día' : 'Los contactos se actualizarán solo al sincronizar'),
        onError: (err) => toast.error(errorMessage(err, 'Error al cambiar «Mantener contactos al día»')),
      },
    );

  return (
    <div className="space-y-1 rounded-md border border-gray-200 p-3 text-sm">
      <label htmlFor={id} className="flex items-center justify-between gap-2 max-sm:min-h-11">
        <span className="font-medium text-gray-900">Mantener contactos al día</span>
        <input
          id={id}
          type="checkbox"
          role="switch"
          checked={f.keep_fresh}
          disabled={!canEdit || save.isPending}
          onChange={(e) => onToggle(e.target.checked)}
          className="h-4 w-4"
        />
      </label>
      <p className="text-gray-600" data-testid={`freshness-source-${account.id}`}>
        {FRESHNESS_SOURCE_LABELS[f.source]}
      </p>
      {f.source !== 'off' && (
        <p className="text-xs text-gray-500">Último evento: {f.last_event_at ? formatDateTime(f.last_event_at) : 'ninguno todavía'}</p>
      )}
      {f.error && (
        <p role="status" className="rounded bg-amber-50 p-2 text-xs text-amber-800">
          {f.error}
        </p>
      )}
    </div>
  );
}
