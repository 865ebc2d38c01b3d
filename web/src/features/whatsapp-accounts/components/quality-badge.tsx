import { displayQuality } from '@masivo/contract/whatsapp-accounts';
import { Badge, type BadgeTone } from '@/components/ui/badge';

const TONES: Record<string, BadgeTone> = { GREEN: 'green', YELLOW: 'yellow', RED: 'red', UNKNOWN: 'gray' };

/** Meta's quality rating; anything but GREEN, YELLOW or RED is UNKNOWN (spec §3). */
export function QualityBadge({ rating }: { rating: string | null }) {
  const quality = displayQuality(rating);
  return (
    <Badge tone={TONES[quality]} className="font-mono">
      {quality}
    </Badge>
  );
}
