import type { ContactFilter } from '@masivo/contract/contact-filter';
import { Users } from 'lucide-react';
import { formatNumber } from '@/lib/format';
import { useRecipientCount } from '../api/get-recipient-count';
import { useDebouncedValue } from '@/lib/use-debounced-value';

/** How many contacts the filters select now (the pre-flight panel says how many are attempted); typing does not fire a request per key. */
export function RecipientsBox({ kommoAccountId, filter }: { kommoAccountId: number | undefined; filter: ContactFilter }) {
  const debounced = useDebouncedValue(filter, 400);
  const count = useRecipientCount(kommoAccountId, debounced);
  return (
    <div className="flex items-center gap-4 rounded-lg border border-blue-200 bg-blue-50 p-4" data-testid="recipients-box">
      <div className="rounded-lg bg-blue-100 p-3 text-blue-600">
        <Users className="h-6 w-6" aria-hidden="true" />
      </div>
      {/* A live region: the count changes as filters change, and a screen reader should hear it. */}
      <div role="status" aria-live="polite" aria-atomic="true" className="min-w-0">
        <p className="text-sm font-medium text-blue-900">Destinatarios</p>
        {!kommoAccountId ? (
          <p className="text-sm text-blue-700">Selecciona una cuenta Kommo para calcular los destinatarios</p>
        ) : count.isError ? (
          <p className="text-sm text-red-700">{count.error.message || 'Error al calcular los destinatarios'}</p>
        ) : count.data === undefined ? (
          <p className="text-sm text-blue-700">Calculando...</p>
        ) : (
          <p className="text-sm text-blue-700">
            <span className="text-2xl font-semibold text-blue-900" data-testid="recipient-count">
              {count.data.approximate ? `≈ ${formatNumber(count.data.count)}` : formatNumber(count.data.count)}
            </span>{' '}
            {count.data.count === 1 ? 'contacto coincide' : 'contactos coinciden'} con los filtros
            {count.data.approximate && <span className="ml-2 text-xs text-blue-700">(estimado; calculando la cifra exacta)</span>}
            {count.isFetching && <span className="ml-2 text-xs text-blue-700">actualizando...</span>}
          </p>
        )}
      </div>
    </div>
  );
}
