import type { Template } from '@masivo/contract/templates';
import { FileText, Plus, RefreshCw } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Select } from '@/components/ui/field';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useErrorToast } from '@/lib/use-error-toast';
import { useAccountTemplates } from '@/api/templates';
import { useWhatsAppAccounts } from '@/api/whatsapp-accounts';
import { useSyncAllTemplates, useSyncTemplates } from '../api/sync-templates';
import { CreateTemplateDialog } from './create-template-dialog';
import { TemplateCard } from './template-card';
import { VariableMappingDialog } from './variable-mapping-dialog';
import { Can } from '@/lib/use-member';

export function TemplatesPage() {
  const accounts = useWhatsAppAccounts();
  const [chosenId, setChosenId] = useState<number | null>(null);
  // The first account is preselected until the operator picks another.
  const accountId = chosenId ?? accounts.data?.[0]?.id ?? null;
  const account = accounts.data?.find((a) => a.id === accountId) ?? null;
  const templates = useAccountTemplates(accountId, { pollWhilePending: true });
  useErrorToast(accounts.error, 'Error al cargar las cuentas de WhatsApp');
  useErrorToast(templates.error, 'Error al cargar los templates');
  const sync = useSyncTemplates();
  const syncAll = useSyncAllTemplates();
  const [creating, setCreating] = useState(false);
  const [mapping, setMapping] = useState<Template | null>(null);

  const onSync = async () => {
    if (!accountId) return void toast.error('Selecciona una cuenta primero');
    try {
      const result = await sync.mutateAsync(accountId);
      toast.success(`Sincronización exitosa: ${result.synced} nuevos, ${result.updated} actualizados`);
      result.errors.forEach((e) => toast.error(`Error: ${e}`));
    } catch (err) {
      toast.error(errorMessage(err, 'Error sincronizando templates'));
    }
  };

  const onSyncAll = async () => {
    if (!accounts.data?.length) return void toast.error('No hay cuentas de WhatsApp disponibles');
    try {
      const result = await syncAll.mutateAsync();
      // Success is claimed only when every account synced; a failed one says so below.
      if (result.results.every((r) => r.success)) toast.success('Sincronización completa exitosa');
      for (const r of result.results) {
        // Spec §8 wording, exactly: 'Error en cuenta: {text}'.
        if (!r.success) toast.error(`Error en cuenta: ${r.error ?? 'Error desconocido'}`);
        r.errors.forEach((e) => toast.error(`Error: ${e}`));
      }
    } catch (err) {
      toast.error(errorMessage(err, 'Error sincronizando templates'));
    }
  };

  const list = templates.data ?? [];
  const syncing = sync.isPending || syncAll.isPending;

  return (
    <div>
      <PageHeader title="Templates" description="Plantillas de mensajes de WhatsApp Business" />

      <Card className="mb-6 flex flex-wrap items-end gap-3 p-4">
        <div className="w-full sm:w-72">
          <Select
            label="Cuenta de WhatsApp"
            name="whatsapp-account"
            value={accountId ?? ''}
            onChange={(e) => setChosenId(e.target.value ? Number(e.target.value) : null)}
          >
            {!accounts.data?.length && <option value="">Sin cuentas de WhatsApp</option>}
            {(accounts.data ?? []).map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.display_phone_number || a.phone_number})
              </option>
            ))}
          </Select>
        </div>
        <Can permission="templates.manage">
          <div className="flex flex-wrap gap-2">
            <Button onClick={() => setCreating(true)} disabled={!account}>
              <Plus className="h-4 w-4" /> Nueva Plantilla
            </Button>
            <Button variant="secondary" onClick={onSyncAll} disabled={syncing}>
              <RefreshCw className={syncAll.isPending ? 'h-4 w-4 motion-safe:animate-spin' : 'h-4 w-4'} /> Sincronizar Todas
            </Button>
            <Button variant="success" onClick={onSync} disabled={syncing}>
              <RefreshCw className={sync.isPending ? 'h-4 w-4 motion-safe:animate-spin' : 'h-4 w-4'} /> Sincronizar Templates
            </Button>
          </div>
        </Can>
      </Card>

      <Card>
        <div className="border-b border-gray-200 px-5 py-3">
          <h2 className="text-lg font-semibold text-gray-900">Templates Disponibles ({list.length})</h2>
        </div>
        {templates.isLoading || accounts.isLoading ? (
          <Spinner className="py-12" />
        ) : templates.isError || accounts.isError ? (
          <EmptyState title={errorMessage(templates.error ?? accounts.error, 'Error al cargar los templates')} />
        ) : list.length === 0 ? (
          <EmptyState
            icon={<FileText className="h-12 w-12" />}
            title="No hay templates"
            hint="Sincroniza los templates desde WhatsApp Business (Facebook) o crea una nueva plantilla."
          />
        ) : (
          <ul className="divide-y divide-gray-200">
            {list.map((t) => (
              <TemplateCard key={t.id} template={t} onConfigure={setMapping} />
            ))}
          </ul>
        )}
      </Card>

      {creating && account && <CreateTemplateDialog open account={account} onClose={() => setCreating(false)} />}
      {mapping && <VariableMappingDialog template={mapping} onClose={() => setMapping(null)} />}
    </div>
  );
}
