import { RECIPIENT_STATUS_LABELS, type RecipientStatus } from '@masivo/contract/campaigns';
import type { BadgeTone } from '@/components/ui/badge';

/** Spanish names of a recipient's delivery states: one list in the contract (table and results export). */
export { RECIPIENT_STATUS_LABELS };

export const RECIPIENT_STATUS_TONES: Record<RecipientStatus, BadgeTone> = {
  waiting: 'gray',
  pending: 'gray',
  sending: 'blue',
  sent: 'blue',
  delivered: 'green',
  read: 'purple',
  failed: 'red',
  skipped: 'yellow',
  unknown: 'yellow',
  deferred: 'yellow',
  expired: 'orange',
};

/** Meta held the message for quality assessment (template pacing): not a failure. */
export const HELD_LABEL = 'Retenido por Meta';

/** The badge of a recipients-table row: "Retenido por Meta" while Meta holds an accepted message. */
export function recipientBadge(m: { status: RecipientStatus; held?: boolean }): { label: string; tone: BadgeTone } {
  if (m.held && m.status === 'sent') return { label: HELD_LABEL, tone: 'yellow' };
  return { label: RECIPIENT_STATUS_LABELS[m.status], tone: RECIPIENT_STATUS_TONES[m.status] };
}
