import { Badge, type BadgeTone } from '@/components/ui/badge';
import { templateDetailLabel, templateStatusLabel } from '@/lib/template-labels';

/** Spec §2: marketing purple, utility blue, authentication green. */
const CATEGORY_TONES: Record<string, BadgeTone> = { marketing: 'purple', utility: 'blue', authentication: 'green' };
/** Spec §2: approved green, pending yellow, rejected red, disabled gray. */
const STATUS_TONES: Record<string, BadgeTone> = { approved: 'green', pending: 'yellow', rejected: 'red', disabled: 'gray', paused: 'yellow' };

export function CategoryBadge({ category }: { category: string }) {
  return <Badge tone={CATEGORY_TONES[category.toLowerCase()] ?? 'gray'}>{category.toLowerCase()}</Badge>;
}

/** The status, with the detail of Meta's last event when it has one ("Pausada · 1.ª pausa: 3 horas"). */
export function StatusBadge({ status, detail }: { status: string; detail?: string | null }) {
  const label = templateStatusLabel(status);
  const extra = templateDetailLabel(detail);
  if (extra && detail === 'FLAGGED') {
    return (
      <>
        <Badge tone={STATUS_TONES[status.toLowerCase()] ?? 'gray'}>{label}</Badge>
        <Badge tone="yellow">{extra}</Badge>
      </>
    );
  }
  return <Badge tone={STATUS_TONES[status.toLowerCase()] ?? 'gray'}>{extra ? `${label} · ${extra}` : label}</Badge>;
}
