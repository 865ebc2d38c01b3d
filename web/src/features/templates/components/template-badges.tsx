import { Badge, type BadgeTone } from '@/components/ui/badge';
import { templateStatusLabel } from '@/lib/template-labels';

/** Spec §2: marketing purple, utility blue, authentication green. */
const CATEGORY_TONES: Record<string, BadgeTone> = { marketing: 'purple', utility: 'blue', authentication: 'green' };
/** Spec §2: approved green, pending yellow, rejected red, disabled gray. */
const STATUS_TONES: Record<string, BadgeTone> = { approved: 'green', pending: 'yellow', rejected: 'red', disabled: 'gray' };

export function CategoryBadge({ category }: { category: string }) {
  return <Badge tone={CATEGORY_TONES[category.toLowerCase()] ?? 'gray'}>{category.toLowerCase()}</Badge>;
}

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={STATUS_TONES[status.toLowerCase()] ?? 'gray'}>{templateStatusLabel(status)}</Badge>;
}
