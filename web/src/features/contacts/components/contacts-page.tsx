import type { ContactFilter } from '@masivo/contract/contact-filter';
import { EMPTY_FILTER, isFilterActive } from '@masivo/contract/contact-filter';
import { DEFAULT_CONTACT_PAGE_SIZE } from '@masivo/contract/contacts';
import { Download, Users } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Link, useSearchParams } from 'react-router';
import { ContactFilterPanel } from '@/components/contact-filter/contact-filter-panel';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Select } from '@/components/ui/field';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { formatNumber } from '@/lib/format';
import { useExportContacts } from '../api/export-contacts';
import { CsvFormatSelect, useCsvFormat } from '@/components/csv-format-select';
import { useFilteredContacts } from '../api/get-filtered-contacts';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { ContactsTable } from './contacts-table';
import { Pagination } from './pagination';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { Can } from '@/lib/use-member';

export function ContactsPage() {
  const accounts = useKommoAccounts();
  const [params, setParams] = useSearchParams();
  const accountId = Number(params.get('account')) || null;
  const [filter, setFilter] = useState<ContactFilter>(EMPTY_FILTER);
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(DEFAULT_CONTACT_PAGE_SIZE);
  const typedFilter = useDebouncedValue(filter, 300);
  // Typing waits for a pause; clearing (a new account, 'Limpiar todos los filtros') applies at
  // once, so the new account's first page is never fetched with the old account's filters.
  const debouncedFilter = isFilterActive(filter) ? typedFilter : filter;
  const exporter = useExportContacts();
  const [csvFormat, setCsvFormat] = useCsvFormat();

  const contacts = useFilteredContacts(
    accountId ? { accountId, filter: debouncedFilter, limit: pageSize, offset: (page - 1) * pageSize } : null,
  );

  // Spec §2: a new account clears filters and page; a new filter goes back to the first page.
  const chooseAccount = (id: number | null) => {
    setFilter(EMPTY_FILTER);
    setPage(1);
    setParams(id ? { account: String(id) } : {}, { replace: true });
  };
  const changeFilter = (next: ContactFilter) => {
    setFilter(next);
    setPage(1);
  };

  const onExport = () =>
    accountId &&
    exporter.mutate(
      { accountId, filter, format: csvFormat },
      {
        onSuccess: () => toast.success('Exportación descargada'),
        onError: (err) => toast.error(errorMessage(err, 'Error al exportar los contactos')),
      },
    );

  const data = contacts.data;
  const total = data?.total ?? 0;

  return (
    <div className="space-y-4">
      <PageHeader
        title="Contactos"
        description="Contactos sincronizados desde Kommo"
        actions={
          accountId && (
            <Can permission="contacts.export">
              <CsvFormatSelect value={csvFormat} onChange={setCsvFormat} className="py-2" />
              <Button variant="secondary" onClick={onExport} disabled={exporter.isPending || total === 0}>
                <Download className="h-4 w-4" />
                {exporter.isPending ? 'Exportando...' : 'Exportar CSV'}
              </Button>
            </Can>
          )
        }
      />

      <Card className="p-4">
        <div className="max-w-md">
          <Select
            label="Cuenta Kommo"
            id="contacts-account"
            value={accountId ?? ''}
            onChange={(e) => chooseAccount(Number(e.target.value) || null)}
            disabled={accounts.isLoading}
          >
            <option value="">Selecciona una cuenta</option>
            {accounts.data?.map((a) => (
              <option key={a.id} value={a.id}>
                {a.subdomain} ({formatNumber(a.sync_total_contacts)} contactos)
              </option>
            ))}
          </Select>
        </div>
        {accounts.isError && <p className="mt-2 text-sm text-red-600">Error al cargar las cuentas</p>}
        {accounts.data?.length === 0 && (
          <p className="mt-2 text-sm text-gray-500">
            No tienes cuentas Kommo.{' '}
            <Link to="/accounts" className="text-blue-600 hover:underline">
              Crea una en Cuentas Kommo
            </Link>
          </p>
        )}
      </Card>

      {!accountId ? (
        <Card>
          <EmptyState icon={<Users className="h-12 w-12" />} title="Selecciona una cuenta Kommo para ver sus contactos" />
        </Card>
      ) : (
        <>
          <ContactFilterPanel key={accountId} accountId={accountId} value={filter} onChange={changeFilter} />
          <Card className="overflow-hidden">
            {contacts.isLoading ? (
              <Spinner className="py-12" />
            ) : contacts.isError ? (
              <p role="alert" className="p-6 text-center text-red-600">
                {errorMessage(contacts.error, 'Error al cargar los contactos')}
              </p>
            ) : (
              <div className={contacts.isFetching ? 'opacity-60 transition-opacity' : undefined}>
                <ContactsTable
                  contacts={data?.contacts ?? []}
                  emptyText={isFilterActive(debouncedFilter) ? 'No hay contactos que coincidan con los filtros aplicados' : 'No hay contactos disponibles'}
                />
                <Pagination
                  page={page}
                  pageSize={pageSize}
                  total={total}
                  approximate={data?.total_approximate}
                  shown={{ offset: data?.offset ?? 0, count: data?.contacts.length ?? 0 }}
                  onPage={setPage}
                  onPageSize={(size) => {
                    setPageSize(size);
                    setPage(1);
                  }}
                />
              </div>
            )}
          </Card>
        </>
      )}
    </div>
  );
}
