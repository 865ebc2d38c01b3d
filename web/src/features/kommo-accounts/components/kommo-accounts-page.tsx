import { Database, Plus } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { KommoAccountCard } from './kommo-account-card';
import { NewKommoAccountModal } from './new-kommo-account-modal';
import { Can } from '@/lib/use-member';

export function KommoAccountsPage() {
  const accounts = useKommoAccounts({ pollWhileSyncing: true });
  const [creating, setCreating] = useState(false);

  return (
    <div>
      <PageHeader
        title="Cuentas Kommo"
        description="Conecta tus cuentas de Kommo CRM y sincroniza sus contactos"
        actions={
          <Can permission="connections.manage">
            <Button onClick={() => setCreating(true)}>
              <Plus className="h-4 w-4" />
              Nueva Cuenta
            </Button>
          </Can>
        }
      />
      {accounts.isLoading && <Spinner className="py-12" />}
      {accounts.isError && (
        <Card className="p-6 text-center text-red-600" role="alert">
          Error al cargar las cuentas
        </Card>
      )}
      {accounts.data?.length === 0 && (
        <Card>
          <EmptyState
            icon={<Database className="h-12 w-12" />}
            title="No tienes cuentas Kommo configuradas"
            action={
              <Button onClick={() => setCreating(true)}>
                <Plus className="h-4 w-4" />
                Crear Primera Cuenta
              </Button>
            }
          />
        </Card>
      )}
      {accounts.data && accounts.data.length > 0 && (
        <div className="grid gap-4 md:grid-cols-2 xl:grid-cols-3">
          {accounts.data.map((a) => (
            <KommoAccountCard key={a.id} account={a} />
          ))}
        </div>
      )}
      <NewKommoAccountModal open={creating} onClose={() => setCreating(false)} />
    </div>
  );
}
