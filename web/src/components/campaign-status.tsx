import { CAMPAIGN_STATUS_LABELS, CAMPAIGN_STATUSES, type CampaignStatus } from '@masivo/contract/campaigns';
import { formatNumber } from '../lib/format';
import { Badge, type BadgeTone } from './ui/badge';
import { ProgressBar, type BarSegment } from './ui/progress-bar';

/** Spec §4: an unknown status shows as draft. */
export function campaignStatusOf(raw: string | null | undefined): CampaignStatus {
  return (CAMPAIGN_STATUSES as readonly string[]).includes(raw ?? '') ? (raw as CampaignStatus) : 'draft';
}

const STATUS_TONES: Record<CampaignStatus, BadgeTone> = {
  draft: 'gray',
  scheduled: 'purple',
  sending: 'blue',
  completed: 'green',
  paused: 'yellow',
  cancelled: 'red',
  pending_approval: 'orange',
};

export function CampaignStatusBadge({ status }: { status: string }) {
  const s = campaignStatusOf(status);
  return <Badge tone={STATUS_TONES[s]}>{CAMPAIGN_STATUS_LABELS[s]}</Badge>;
}

type ProgressCounts = {
  total_recipients: number;
  messages_sent: number;
  failed_count?: number;
  skipped_count?: number;
  unknown_count?: number;
};

/**
 * Spec: progress is `messages_sent / total_recipients`, rounded down, so 100% means every
 * recipient got the message. Failed, skipped and unknown recipients are not progress: they show
 * as their own segments (`OUTCOME_SEGMENTS`) and counts.
 */
export function campaignProgress(c: ProgressCounts): number {
  if (!c.total_recipients || c.total_recipients <= 0) return 0;
  return Math.max(0, Math.min(100, Math.floor((c.messages_sent / c.total_recipients) * 100)));
}

/** The outcomes that end a recipient without a message, in the colours of their bar segments. */
export const OUTCOME_SEGMENTS = [
  { key: 'failed_count', label: 'fallidos', className: 'bg-red-500' },
  { key: 'skipped_count', label: 'omitidos', className: 'bg-orange-400' },
  { key: 'unknown_count', label: 'desconocidos', className: 'bg-slate-500' },
] as const;

export function outcomeSegments(c: ProgressCounts): BarSegment[] {
  if (!c.total_recipients || c.total_recipients <= 0) return [];
  return OUTCOME_SEGMENTS.map((s) => ({ value: ((c[s.key] ?? 0) / c.total_recipients) * 100, className: s.className }));
}

/** «90 de 100 mensajes enviados, 10 fallidos»: what the bar shows, in words. */
export function campaignProgressText(c: ProgressCounts): string {
  const base = `${formatNumber(c.messages_sent)} de ${formatNumber(c.total_recipients)} mensajes enviados`;
  const outcomes = OUTCOME_SEGMENTS.filter((s) => (c[s.key] ?? 0) > 0).map((s) => `${formatNumber(c[s.key] ?? 0)} ${s.label}`);
  return [base, ...outcomes].join(', ');
}

/** The campaign's bar as the list, the dashboard and the detail screen draw it. */
export function CampaignProgressBar({ campaign: c, label, className, barClassName }: { campaign: ProgressCounts; label: string; className?: string; barClassName?: string }) {
  return (
    <ProgressBar
      value={campaignProgress(c)}
      label={label}
      valueText={campaignProgressText(c)}
      segments={outcomeSegments(c)}
      className={className}
      barClassName={barClassName}
    />
  );
}

/**
 * A finished campaign in words, beside the spec's percentage, so "77%" is not read as
 * unfinished: «Completada · 63 enviados de 81 (18 omitidos)». The parenthesis names why the
 * rest got no message (failed, skipped, unknown); null unless completed.
 */
export function completedSummary(c: ProgressCounts & { status: string }): string | null {
  if (campaignStatusOf(c.status) !== 'completed') return null;
  // Deferred recipients have their own note ("Completada · N diferidos pendientes").
  const outcomes = OUTCOME_SEGMENTS.map((s) => ({ n: c[s.key] ?? 0, label: s.label }))
    .filter((o) => o.n > 0)
    .map((o) => `${formatNumber(o.n)} ${o.n === 1 ? o.label.replace(/s$/, '') : o.label}`);
  const base = `Completada · ${formatNumber(c.messages_sent)} ${c.messages_sent === 1 ? 'enviado' : 'enviados'} de ${formatNumber(c.total_recipients)}`;
  return outcomes.length ? `${base} (${outcomes.join(', ')})` : base;
}
