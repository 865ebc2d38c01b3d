import { BLACKLIST_ORIGIN_LABELS, type BlacklistEntry } from '@masivo/contract/blacklist';
import { Ban, Trash2 } from 'lucide-react';
import toast from 'react-hot-toast';
import { EmptyState } from '@/components/ui/empty-state';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useRemoveFromBlacklist } from '../api/blacklist-mutations';
import { TableHead } from '@/components/ui/table-head';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { useIsPhone } from '@/components/ui/use-media-query';
import { useMember } from '@/lib/use-member';

/** Where the entry came from (typed, a BAJA, a «Baja» button, a stop in WhatsApp), with the BSUID of a username user. */
const originLabel = (e: BlacklistEntry) =>
  `${BLACKLIST_ORIGIN_LABELS[e.origin ?? 'manual']}${e.bsuid && e.bsuid !== e.phone ? ` · ${e.bsuid}` : ''}`;

export function BlacklistTable({ accountId, entries }: { accountId: number; entries: BlacklistEntry[] }) {
  const remove = useRemoveFromBlacklist(accountId);
  const onRemove = (e: BlacklistEntry) => {
    if (!window.confirm(`¿Remover ${e.phone} de la blacklist?`)) return;
    remove.mutate(e.id, {
      onSuccess: () => toast.success('Número removido de blacklist exitosamente'),
      onError: (err) => toast.error(errorMessage(err, 'Error al remover de blacklist')),
    });
  };
  const phone = useIsPhone();
  const { can } = useMember();
  if (entries.length === 0) return <EmptyState icon={<Ban className="h-12 w-12" />} title="No hay números en la blacklist" />;
  const removeButton = (e: BlacklistEntry) =>
    can('blacklist.remove') && (
    <button
      type="button"
      onClick={() => onRemove(e)}
      disabled={remove.isPending}
      aria-label={`Remover ${e.phone}`}
      className="inline-flex items-center gap-1 rounded px-2 py-1 text-red-600 hover:bg-red-50"
    >
      <Trash2 className="h-4 w-4" aria-hidden="true" />
      Remover
    </button>
  );
  if (phone)
    return (
      <StackedList label="Blacklist">
        {entries.map((e) => (
          <StackedItem
            key={e.id}
            title={<span className="font-mono">{e.phone}</span>}
            fields={[
              { label: 'Motivo', value: e.reason || '-', wide: true },
              { label: 'Origen', value: originLabel(e) },
              { label: 'Fecha', value: formatDateTime(e.created_at), wide: true },
            ]}
            actions={removeButton(e)}
          />
        ))}
      </StackedList>
    );
  return (
    <TableScroll label="Blacklist">
      <table className="min-w-full divide-y divide-gray-200 text-sm">
        <TableHead columns={['Teléfono', 'Motivo', 'Origen', 'Fecha', 'Acciones']} dense />
        <tbody className="divide-y divide-gray-100 bg-white">
          {entries.map((e) => (
            <tr key={e.id} className="hover:bg-gray-50">
              <td className="px-4 py-2.5 font-mono whitespace-nowrap text-gray-900">{e.phone}</td>
              <td className="px-4 py-2.5 text-gray-700">{e.reason || '-'}</td>
              <td className="px-4 py-2.5 whitespace-nowrap text-gray-700">{originLabel(e)}</td>
              <td className="px-4 py-2.5 whitespace-nowrap text-gray-700">{formatDateTime(e.created_at)}</td>
              <td className="px-4 py-2.5">
                {removeButton(e)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
