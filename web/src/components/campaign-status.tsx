import { CAMPAIGN_STATUS_LABELS, CAMPAIGN_STATUSES, type CampaignStatus } from '@masivo/contract/campaigns';
import { Badge, type BadgeTone } from './ui/badge';

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
 * How far a campaign has got, 0–100: recipients already settled (sent, failed, skipped or
 * unknown) over the audience. Rounded down, so 100% means every recipient is settled even
 * when some could not be sent (a skipped invalid phone still counts as done).
 */
export function campaignProgress(c: ProgressCounts): number {
  if (!c.total_recipients || c.total_recipients <= 0) return 0;
  const settled = c.messages_sent + (c.failed_count ?? 0) + (c.skipped_count ?? 0) + (c.unknown_count ?? 0);
  return Math.max(0, Math.min(100, Math.floor((settled / c.total_recipients) * 100)));
}
