import { Plus, Search } from 'lucide-react';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Select } from '@/components/ui/field';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useBlacklist } from '../api/get-blacklist';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { AddNumberModal } from './add-number-modal';
import { BlacklistTable } from './blacklist-table';
import { Can } from '@/lib/use-member';

export function BlacklistPage() {
  const accounts = useKommoAccounts();
  const [params, setParams] = useSearchParams();
  const accountId = Number(params.get('account')) || null;
  const [query, setQuery] = useState('');
  const [adding, setAdding] = useState(false);
  const list = useBlacklist(accountId, query);

  return (
    <div className="space-y-4">
      <PageHeader
        title="Blacklist"
        description="Números que nunca reciben mensajes de campañas de esta cuenta"
        actions={
          <Can permission="blacklist.add">
            <Button onClick={() => setAdding(true)} disabled={!accountId}>
              <Plus className="h-4 w-4" />
              Agregar Número
            </Button>
          </Can>
        }
      />
      <Card className="flex flex-wrap items-end gap-4 p-4">
        <div className="w-full max-w-xs">
          <Select
            label="Cuenta Kommo"
            id="blacklist-account"
            value={accountId ?? ''}
            onChange={(e) => {
              setQuery('');
              setParams(Number(e.target.value) ? { account: e.target.value } : {}, { replace: true });
            }}
          >
            <option value="">Selecciona una cuenta</option>
            {accounts.data?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.subdomain}
              </option>
            ))}
          </Select>
        </div>
        {accountId && (
          <div className="relative w-full max-w-xs">
            <Search className="pointer-events-none absolute top-1/2 left-3 h-4 w-4 -translate-y-1/2 text-gray-400" aria-hidden="true" />
            <input
              type="search"
              aria-label="Buscar en la blacklist"
              placeholder="Buscar número o motivo..."
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              className="block w-full rounded-md border border-gray-300 py-2 pr-3 pl-9 text-sm focus:border-blue-500"
            />
          </div>
        )}
        {accounts.isError && <p className="text-sm text-red-600">Error al cargar las cuentas</p>}
      </Card>
      <Card className="overflow-hidden">
        {!accountId ? (
          <EmptyState title="Selecciona una cuenta Kommo para ver su blacklist" />
        ) : list.isLoading ? (
          <Spinner className="py-12" />
        ) : list.isError ? (
          <p role="alert" className="p-6 text-center text-red-600">
            {errorMessage(list.error, 'Error al cargar la blacklist')}
          </p>
        ) : (
          <BlacklistTable accountId={accountId} entries={list.data ?? []} />
        )}
      </Card>
      {accountId && <AddNumberModal accountId={accountId} open={adding} onClose={() => setAdding(false)} />}
    </div>
  );
}
