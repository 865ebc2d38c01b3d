import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { useQueryClient } from '@tanstack/react-query';
import { RefreshCw, Square, Trash2, Users } from 'lucide-react';
import { useEffect, useRef } from 'react';
import toast from 'react-hot-toast';
import { useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { ProgressBar } from '@/components/ui/progress-bar';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useSyncStatus } from '../api/get-sync-status';
import { useCancelContactSync, useDeleteKommoAccount, useStartContactSync } from '../api/kommo-account-mutations';
import { SyncStatusBadge } from './sync-status-badge';
import { KommoCountrySettings } from './kommo-country-settings';
import { Badge } from '@/components/ui/badge';
import { KommoTimeZoneSettings } from './kommo-time-zone-settings';
import { KommoWritebackSettings } from './kommo-writeback-settings';
import { KommoFreshness } from './kommo-freshness';
import { kommoAccountsKeys } from '@/api/kommo-accounts';
import { Can } from '@/lib/use-member';

export function KommoAccountCard({ account }: { account: KommoAccount }) {
  const navigate = useNavigate();
  const qc = useQueryClient();
  const sync = useStartContactSync();
  const remove = useDeleteKommoAccount();
  const cancel = useCancelContactSync();
  const live = useSyncStatus(account.id, account.sync_status === 'syncing');
  // While a sync runs, the fresh status wins over the (slower) list.
  const s = account.sync_status === 'syncing' && live.data ? { ...account, ...live.data } : account;
  const syncing = s.sync_status === 'syncing' || sync.isPending;
  // A new default country re-checks the phones in the sync's slot: the card says so, not "Sincronizando".
  const rechecking = s.sync_status === 'syncing' && s.phone_recheck?.status === 'running';

  // When the live status says the sync ended, the list (totals, last sync) is refreshed once.
  const wasSyncing = useRef(s.sync_status === 'syncing');
  useEffect(() => {
    if (wasSyncing.current && s.sync_status !== 'syncing') void qc.invalidateQueries({ queryKey: kommoAccountsKeys.all });
    wasSyncing.current = s.sync_status === 'syncing';
  }, [s.sync_status, qc]);

  const total = Math.max(s.sync_total_contacts, s.sync_progress_contacts);
  // Kommo lists have no count: a first sync learns its total only at the end.
  const totalUnknown = s.sync_status === 'syncing' && !rechecking && s.sync_total_contacts <= s.sync_progress_contacts;
  const pct = totalUnknown ? 100 : total > 0 ? (s.sync_progress_contacts / total) * 100 : 0;

  const onSync = () =>
    sync.mutate(account.id, {
      onSuccess: () => toast.success('Sincronización iniciada'),
      onError: (err) => toast.error(errorMessage(err, 'Error al iniciar sincronización')),
    });

  const onCancel = () =>
    cancel.mutate(account.id, {
      onSuccess: () => toast.success(rechecking ? 'Revisión de teléfonos cancelada' : 'Sincronización cancelada'),
      onError: (err) => toast.error(errorMessage(err, 'Error al cancelar la sincronización')),
    });

  const onDelete = () => {
    if (!window.confirm(`¿Estás seguro de que quieres eliminar la cuenta ${account.subdomain}? Se eliminarán sus contactos sincronizados.`)) return;
    remove.mutate(account.id, {
      onSuccess: () => toast.success('Cuenta eliminada exitosamente'),
      onError: (err) => toast.error(errorMessage(err, 'Error al eliminar la cuenta')),
    });
  };

  return (
    <Card className="flex flex-col gap-4 p-5" data-testid={`kommo-account-${account.id}`}>
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="truncate text-lg font-semibold text-gray-900">{account.subdomain}</h2>
          <p className="text-xs text-gray-500">{account.subdomain}.kommo.com</p>
        </div>
        <div className="flex items-center gap-2">
          {rechecking ? <Badge tone="blue">Revisando teléfonos</Badge> : <SyncStatusBadge status={s.sync_status} />}
          <Can permission="connections.manage">
            <button
              type="button"
              onClick={onDelete}
              disabled={remove.isPending}
              aria-label={`Eliminar cuenta ${account.subdomain}`}
              className="tap-target inline-flex items-center justify-center rounded p-1 text-gray-500 hover:bg-red-50 hover:text-red-600"
            >
              <Trash2 className="h-4 w-4" aria-hidden="true" />
            </button>
          </Can>
        </div>
      </div>

      {/* dt/dd pairs sit directly in their div inside the dl; the progress bar stays outside the list. */}
      <div className="space-y-2 text-sm">
        <dl className="space-y-2">
          <div className="flex justify-between gap-2">
            <dt className="text-gray-500">Campo de teléfono</dt>
            <dd className="font-mono text-gray-900">{account.phone_field_id}</dd>
          </div>
          <div className="flex justify-between gap-2">
            <dt className="text-gray-500">Contactos sincronizados</dt>
            <dd className="text-gray-900" data-testid="sync-progress">
              {formatNumber(s.sync_progress_contacts)} / {totalUnknown ? 'calculando...' : formatNumber(total)}
            </dd>
          </div>
        </dl>
        <ProgressBar
          value={pct}
          label={`Sincronización de ${account.subdomain}`}
          valueText={totalUnknown ? `${formatNumber(s.sync_progress_contacts)} contactos, total por calcular` : `${formatNumber(s.sync_progress_contacts)} de ${formatNumber(total)} contactos`}
          barClassName={
            totalUnknown ? 'motion-safe:animate-pulse bg-blue-300' : s.sync_status === 'error' ? 'bg-red-500' : s.sync_status === 'synced' ? 'bg-green-600' : undefined
          }
        />
        <dl>
          <div className="flex justify-between gap-2">
            <dt className="text-gray-500">Última sincronización</dt>
            <dd className="text-right text-gray-900">{s.last_sync_at ? formatDateTime(s.last_sync_at) : 'Nunca'}</dd>
          </div>
        </dl>
      </div>

      <KommoFreshness account={account} />
      <KommoCountrySettings account={account} recheck={s.phone_recheck} busy={syncing} />
      <KommoTimeZoneSettings account={account} />
      <KommoWritebackSettings account={account} />

      {s.sync_status === 'error' && s.sync_error_message && (
        <p role="alert" className="rounded-md bg-red-50 p-2 text-sm text-red-700">
          {s.sync_error_message}
        </p>
      )}

      <div className="mt-auto flex flex-wrap gap-2">
        <Can permission="campaigns.edit">
          <Button onClick={onSync} disabled={syncing} className="flex-1">
            <RefreshCw className={syncing ? 'h-4 w-4 motion-safe:animate-spin' : 'h-4 w-4'} aria-hidden="true" />
            {rechecking ? 'Revisando teléfonos...' : syncing ? 'Sincronizando...' : 'Sincronizar'}
          </Button>
        </Can>
        {s.sync_status === 'syncing' && (
          <Button variant="secondary" onClick={onCancel} disabled={cancel.isPending} className="flex-1">
            <Square className="h-4 w-4" aria-hidden="true" />
            {rechecking ? 'Cancelar revisión' : 'Cancelar sincronización'}
          </Button>
        )}
        <Button variant="secondary" onClick={() => navigate(`/contacts?account=${account.id}`)} className="flex-1">
          <Users className="h-4 w-4" />
          Ver Contactos
        </Button>
      </div>
    </Card>
  );
}
