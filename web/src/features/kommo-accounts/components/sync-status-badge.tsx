import { SYNC_STATUS_LABELS, type SyncStatus } from '@masivo/contract/kommo-accounts';
import { Badge, type BadgeTone } from '@/components/ui/badge';

const TONES: Record<SyncStatus, BadgeTone> = { idle: 'gray', syncing: 'blue', synced: 'green', error: 'red' };

export function SyncStatusBadge({ status }: { status: SyncStatus }) {
  const known = status in TONES ? status : 'idle';
  return <Badge tone={TONES[known]}>{SYNC_STATUS_LABELS[known]}</Badge>;
}
