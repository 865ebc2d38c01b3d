import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { CheckCircle, Edit, Power, RefreshCw, ShieldCheck, ShieldOff, Trash2, Wifi, XCircle } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useRefreshWhatsAppAccount, useTestWhatsAppAccount } from '../api/check-whatsapp-account';
import { useDeleteWhatsAppAccount, useUpdateWhatsAppAccount } from '../api/save-whatsapp-account';
import { CopyField } from './copy-field';
import { QualityBadge } from './quality-badge';
import { dailyLimitText } from './daily-limit';
import { ThroughputRows } from './throughput-rows';
import { MarketingMessagesStatus } from './marketing-messages-status';
import { Can } from '@/lib/use-member';

/** Meta returns the display number without "+" (e.g. 15550783881); the card shows it dialable. */
export function displayedPhone(account: WhatsAppAccount): string {
  const shown = account.display_phone_number || account.phone_number;
  return /^\d+$/.test(shown) ? `+${shown}` : shown;
}

/** Spec §8: «{prefix}: {reason}», the reason being the server's message or 'Error desconocido' (HTTP failures too). */
export const failureText = (prefix: string, reason: unknown) =>
  `${prefix}: ${(typeof reason === 'string' ? reason : errorMessage(reason, '')) || 'Error desconocido'}`;

/** Spec §2/§8: failures on this screen are browser alerts. */
export function AccountCard({ account, onEdit }: { account: WhatsAppAccount; onEdit: (account: WhatsAppAccount) => void }) {
  const test = useTestWhatsAppAccount();
  const refresh = useRefreshWhatsAppAccount();
  const update = useUpdateWhatsAppAccount();
  const remove = useDeleteWhatsAppAccount();
  const busy = test.isPending || refresh.isPending || update.isPending || remove.isPending;

  const onTest = async () => {
    try {
      const result = await test.mutateAsync(account.id);
      if (result.success) window.alert('Conexión exitosa con WhatsApp Business API');
      else window.alert(failureText('Error al probar la cuenta', result.error ?? ''));
    } catch (err) {
      window.alert(failureText('Error al probar la cuenta', err));
    }
  };

  const onRefresh = async () => {
    try {
      await refresh.mutateAsync(account.id);
    } catch (err) {
      window.alert(errorMessage(err, 'Error al refrescar la información de la cuenta'));
    }
  };

  const onToggle = async () => {
    try {
      await update.mutateAsync({ id: account.id, input: { name: account.name, is_active: !account.is_active } });
    } catch (err) {
      window.alert(failureText(account.is_active ? 'Error al desactivar la cuenta' : 'Error al activar la cuenta', err));
    }
  };

  const onDelete = async () => {
    if (!window.confirm(`¿Estás seguro de que quieres eliminar la cuenta "${account.name}"? Esta acción no se puede deshacer.`)) return;
    try {
      await remove.mutateAsync(account.id);
    } catch (err) {
      window.alert(failureText('Error al eliminar la cuenta', err));
    }
  };

  return (
    <Card className="flex flex-col p-5" data-testid="whatsapp-account-card">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <div className="flex items-center gap-2">
            <h2 className="truncate text-lg font-semibold text-gray-900">{account.name}</h2>
            {account.is_active ? (
              <CheckCircle className="h-5 w-5 shrink-0 text-green-500" aria-label="Activa" />
            ) : (
              <XCircle className="h-5 w-5 shrink-0 text-gray-500" aria-label="Inactiva" />
            )}
          </div>
          <div className="mt-1 flex items-center gap-1.5 text-sm text-gray-600">
            <span>{displayedPhone(account)}</span>
            {account.is_verified ? (
              <ShieldCheck className="h-4 w-4 text-blue-500" aria-label="Verificada" />
            ) : (
              <ShieldOff className="h-4 w-4 text-gray-300" aria-label="No verificada" />
            )}
          </div>
          {account.verified_name && <p className="text-xs text-gray-500">{account.verified_name}</p>}
        </div>
        <QualityBadge rating={account.quality_rating} />
      </div>
      {account.restriction && (
        <div className="mt-3 rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-800" role="status" data-testid="number-restricted">
          <p className="font-medium">
            Restringido por Meta{account.restriction.reason ? `: ${account.restriction.reason.replace(/\.$/, '')}` : ''}
          </p>
          <p className="mt-0.5 text-xs">
            {account.restriction.until ? `Hasta el ${formatDateTime(account.restriction.until)}` : 'Hasta que Meta lo habilite de nuevo'}. No recibe
            personas nuevas en las campañas con varios números; las que ya tiene esperan.
          </p>
        </div>
      )}

      <dl className="mt-4 grid grid-cols-2 gap-x-4 gap-y-2 text-sm">
        <dt className="text-gray-500">Mensajes hoy</dt>
        <dd className="text-right font-medium text-gray-900">{formatNumber(account.daily_message_count)}</dd>
        <dt className="text-gray-500">Último mensaje</dt>
        <dd className="text-right text-gray-900">{account.last_message_sent_at ? formatDateTime(account.last_message_sent_at) : 'Nunca'}</dd>
        <dt className="text-gray-500">Velocidad de envío</dt>
        <dd className="text-right text-gray-900">{formatNumber(account.rate_per_second)} msg/s</dd>
        <ThroughputRows account={account} />
        <dt className="text-gray-500">Límite diario de Meta</dt>
        <dd className="text-right text-gray-900">{dailyLimitText(account)}</dd>
        {/* Meta's tier name only while the daily limit itself is unknown (it says the same). */}
        {account.messaging_limit && account.daily_limit == null && (
          <>
            <dt className="text-gray-500">Límite de mensajería</dt>
            <dd className="text-right text-gray-900">{account.messaging_limit}</dd>
          </>
        )}
      </dl>
      {account.notes && <p className="mt-3 rounded bg-gray-50 p-2 text-sm text-gray-600">{account.notes}</p>}
      <MarketingMessagesStatus state={account.marketing_messages} />

      <div className="mt-4 space-y-2 border-t border-gray-200 pt-3">
        <CopyField label="URL de callback del webhook" value={account.webhook_url} />
        <CopyField label="Token de verificación" value={account.webhook_verify_token ?? ''} />
      </div>

      <Can permission="connections.manage">
      <div className="mt-4 flex flex-wrap gap-2 border-t border-gray-200 pt-3">
        <Button size="sm" variant="secondary" onClick={onTest} disabled={busy}>
          <Wifi className="h-4 w-4" /> {test.isPending ? 'Probando...' : 'Probar'}
        </Button>
        <Button size="sm" variant="secondary" onClick={onRefresh} disabled={busy}>
          <RefreshCw className={refresh.isPending ? 'h-4 w-4 motion-safe:animate-spin' : 'h-4 w-4'} /> Actualizar
        </Button>
        <Button size="sm" variant="secondary" onClick={() => onEdit(account)} disabled={busy}>
          <Edit className="h-4 w-4" /> Editar
        </Button>
        <Button size="sm" variant={account.is_active ? 'warning' : 'success'} onClick={onToggle} disabled={busy}>
          <Power className="h-4 w-4" /> {account.is_active ? 'Desactivar' : 'Activar'}
        </Button>
        <Button size="sm" variant="danger" onClick={onDelete} disabled={busy}>
          <Trash2 className="h-4 w-4" /> Eliminar
        </Button>
      </div>
      </Can>
    </Card>
  );
}
