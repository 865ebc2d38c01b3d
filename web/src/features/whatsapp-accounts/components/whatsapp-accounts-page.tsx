import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { MessageCircle, Plus, X } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useWhatsAppAccounts } from '@/api/whatsapp-accounts';
import { AccountCard } from './account-card';
import { AccountFormModal } from './account-form-modal';
import { AccountStats } from './account-stats';
import { Can } from '@/lib/use-member';

export function WhatsAppAccountsPage() {
  const accounts = useWhatsAppAccounts();
  const [modal, setModal] = useState<{ open: boolean; account: WhatsAppAccount | null }>({ open: false, account: null });
  const [dismissedError, setDismissedError] = useState<unknown>(null);
  const openAdd = () => setModal({ open: true, account: null });
  const showError = accounts.error && accounts.error !== dismissedError;

  return (
    <div>
      <PageHeader
        title="Cuentas de WhatsApp"
        description="Gestiona tus cuentas de WhatsApp Business API"
        actions={
          <Can permission="connections.manage">
            <Button onClick={openAdd}>
              <Plus className="h-4 w-4" /> Agregar Cuenta
            </Button>
          </Can>
        }
      />
      <AccountStats />

      {showError && (
        <div role="alert" className="mb-6 flex items-start justify-between gap-3 rounded-md border border-red-200 bg-red-50 p-4 text-sm text-red-700">
          <span>{errorMessage(accounts.error, 'Error al cargar las cuentas de WhatsApp')}</span>
          <button type="button" aria-label="Cerrar" onClick={() => setDismissedError(accounts.error)} className="text-red-500 hover:text-red-700">
            <X className="h-4 w-4" />
          </button>
        </div>
      )}

      {accounts.isLoading ? (
        <Spinner className="py-16" />
      ) : !accounts.data?.length ? (
        <Card>
          <EmptyState
            icon={<MessageCircle className="h-12 w-12" />}
            title="No tienes cuentas de WhatsApp configuradas"
            hint="Agrega una cuenta de WhatsApp Business API para enviar mensajes"
            action={
              <Button onClick={openAdd}>
                <Plus className="h-4 w-4" /> Agregar primera cuenta
              </Button>
            }
          />
        </Card>
      ) : (
        <div className="grid grid-cols-1 gap-6 lg:grid-cols-2 2xl:grid-cols-3">
          {accounts.data.map((account) => (
            <AccountCard key={account.id} account={account} onEdit={(a) => setModal({ open: true, account: a })} />
          ))}
        </div>
      )}

      <AccountFormModal open={modal.open} account={modal.account} onClose={() => setModal({ open: false, account: null })} />
    </div>
  );
}
