import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';

/** Thousands always grouped ("1.234"), as the card's sentence reads. */
const grouped = new Intl.NumberFormat('es-ES', { useGrouping: 'always' } as unknown as Intl.NumberFormatOptions);
const formatNumber = (n: number | null | undefined) => grouped.format(n ?? 0);

/**
 * The portfolio's messaging limit on the account card:
 * "1.234 / 2.000 destinatarios únicos (24 h)", "Ilimitado · 1.234 destinatarios únicos (24 h)",
 * or "Sin datos: usa «Probar»" until Meta told it.
 */
export function dailyLimitText(a: Pick<WhatsAppAccount, 'daily_limit' | 'daily_limit_used'>): string {
  const used = formatNumber(a.daily_limit_used);
  if (a.daily_limit === null || a.daily_limit === undefined) return 'Sin datos: usa «Probar»';
  if (a.daily_limit < 0) return `Ilimitado · ${used} destinatarios únicos (24 h)`;
  return `${used} / ${formatNumber(a.daily_limit)} destinatarios únicos (24 h)`;
}
