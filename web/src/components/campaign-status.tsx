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

/** Share of the audience already sent, 0–100, as the list, detail and dashboard show it. */
export function sentPercent(c: { messages_sent: number; total_recipients: number }): number {
  if (!c.total_recipients || c.total_recipients <= 0) return 0;
  return Math.min(100, Math.round((c.messages_sent / c.total_recipients) * 100));
}
