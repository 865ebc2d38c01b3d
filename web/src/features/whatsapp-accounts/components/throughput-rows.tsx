import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { formatNumber } from '@/lib/format';

/**
 * Meta's throughput for the number: "Rendimiento de Meta: 80 msg/s (STANDARD)",
 * and the rate campaigns really go at when Meta's is below the configured one. Nothing while
 * Meta has not told (the number was never tested).
 */
export function ThroughputRows({ account }: { account: WhatsAppAccount }) {
  const meta = account.throughput_rate_per_second;
  if (meta === null || meta === undefined) return null;
  const level = account.is_on_biz_app ? 'coexistencia con la app' : (account.throughput_level ?? '');
  const effective = account.effective_rate_per_second ?? account.rate_per_second;
  return (
    <>
      <dt className="text-gray-500">Rendimiento de Meta</dt>
      <dd className="text-right text-gray-900" data-testid="throughput">
        {formatNumber(meta)} msg/s ({level})
      </dd>
      {effective < account.rate_per_second && (
        <dd className="col-span-2 text-right text-xs text-amber-700">Las campañas se envían a {formatNumber(effective)} msg/s</dd>
      )}
    </>
  );
}
