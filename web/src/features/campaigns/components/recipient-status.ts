import { DEFERRED_LABEL, type RecipientStatus } from '@masivo/contract/campaigns';
import type { BadgeTone } from '@/components/ui/badge';

/** Spanish names of a recipient's delivery states (beyond the spec: the recipients table). */
export const RECIPIENT_STATUS_LABELS: Record<RecipientStatus, string> = {
  pending: 'Pendiente',
  sending: 'Enviando',
  sent: 'Enviado',
  delivered: 'Entregado',
  read: 'Leído',
  failed: 'Fallido',
  skipped: 'Omitido',
  unknown: 'Desconocido',
  deferred: DEFERRED_LABEL,
};

export const RECIPIENT_STATUS_TONES: Record<RecipientStatus, BadgeTone> = {
  pending: 'gray',
  sending: 'blue',
  sent: 'blue',
  delivered: 'green',
  read: 'purple',
  failed: 'red',
  skipped: 'yellow',
  unknown: 'yellow',
  deferred: 'yellow',
};

/** Meta held the message for quality assessment (template pacing): not a failure. */
export const HELD_LABEL = 'Retenido por Meta';

/** The badge of a recipients-table row: "Retenido por Meta" while Meta holds an accepted message. */
export function recipientBadge(m: { status: RecipientStatus; held?: boolean }): { label: string; tone: BadgeTone } {
  if (m.held && m.status === 'sent') return { label: HELD_LABEL, tone: 'yellow' };
  return { label: RECIPIENT_STATUS_LABELS[m.status], tone: RECIPIENT_STATUS_TONES[m.status] };
}
