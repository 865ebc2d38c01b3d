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
