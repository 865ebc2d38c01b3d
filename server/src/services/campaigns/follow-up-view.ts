import { FOLLOW_UP_DEFAULT_HOURS, RECIPIENT_GROUP_LABELS, type Campaign } from '@masivo/contract/campaigns';
import type { campaigns } from '../../db/schema/index';

type Row = Pick<typeof campaigns.$inferSelect, 'audienceKind' | 'sourceGroup' | 'sourceCampaignId' | 'sourceCampaignName'>;

/** "No leyeron en 24 h", "Tocaron «Sí»", or the group's label. */
export function groupLabel(q: { group: string; hours?: number | null; button?: string | null }): string {
  const base = RECIPIENT_GROUP_LABELS[q.group as keyof typeof RECIPIENT_GROUP_LABELS] ?? q.group;
  if (q.group === 'unread') return `${base} en ${q.hours ?? FOLLOW_UP_DEFAULT_HOURS} h`;
  if (q.group === 'tapped' && q.button) return `Tocaron «${q.button}»`;
  return base;
}

/** The `follow_up_of` of the API view (null for a campaign built from filters). */
export function followUpOf(row: Row): Campaign['follow_up_of'] {
  if (row.audienceKind !== 'contact_list' || !row.sourceGroup) return null;
  const g = row.sourceGroup;
  return {
    campaign_id: row.sourceCampaignId ?? null,
    campaign_name: row.sourceCampaignName ?? '',
    group: g.group,
    group_label: groupLabel(g),
    hours: g.hours ?? null,
    button: g.button ?? null,
  };
}
