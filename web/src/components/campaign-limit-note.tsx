import { LIMIT_WAIT_LABEL } from '@masivo/contract/campaigns';
import { formatDateTime, formatNumber } from '../lib/format';

interface LimitFields {
  status: string;
  deferred_count?: number;
  limit_wait_until?: string | null;
}

/**
 * What Meta's limits do to a campaign, beside its status: "En espera del límite diario de
 * Meta · se reanuda …" while the portfolio's daily limit holds it, and "Completada · N
 * diferidos pendientes" while recipients deferred by the marketing limit wait for their retry.
 */
export function campaignLimitNote(c: LimitFields, now = Date.now()): string | null {
  if (c.status === 'sending' && c.limit_wait_until && new Date(c.limit_wait_until).getTime() > now) {
    return `${LIMIT_WAIT_LABEL} · se reanuda el ${formatDateTime(c.limit_wait_until)}`;
  }
  const deferred = c.deferred_count ?? 0;
  if (c.status === 'completed' && deferred > 0) {
    return `Completada · ${formatNumber(deferred)} ${deferred === 1 ? 'diferido pendiente' : 'diferidos pendientes'}`;
  }
  return null;
}

export function CampaignLimitNote({ campaign }: { campaign: LimitFields }) {
  const note = campaignLimitNote(campaign);
  return note ? <p className="mt-1 text-xs text-yellow-700">{note}</p> : null;
}
