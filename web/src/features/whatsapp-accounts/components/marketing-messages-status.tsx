import type { MarketingMessagesState, OnboardingState } from '@masivo/contract/marketing-messages';
import { Megaphone } from 'lucide-react';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { formatDateTime } from '@/lib/format';

const TONES: Record<OnboardingState, BadgeTone> = {
  onboarded: 'green',
  fallback: 'orange',
  eligible: 'yellow',
  pending: 'blue',
  ineligible: 'gray',
  unknown: 'gray',
};

/**
 * The number's Marketing Messages API state (Meta's onboarding status, the portfolio's terms, a
 * refusal that moved the number to Cloud API) with Spanish guidance on accepting Meta's terms.
 */
export function MarketingMessagesStatus({ state }: { state: MarketingMessagesState | undefined }) {
  if (!state) return null;
  return (
    <section className="mt-4 border-t border-gray-200 pt-3" aria-label="API de marketing de Meta" data-testid="mm-status">
      <div className="flex flex-wrap items-center gap-2">
        <Megaphone className="h-4 w-4 shrink-0 text-gray-500" aria-hidden />
        <Badge tone={TONES[state.state]}>{state.label}</Badge>
      </div>
      <p className="mt-2 text-sm text-gray-600">{state.guidance}</p>
      {state.fallback_at && <p className="mt-1 text-xs text-gray-500">Desde {formatDateTime(state.fallback_at)}</p>}
      {state.checked_at && <p className="mt-1 text-xs text-gray-500">Consultado a Meta: {formatDateTime(state.checked_at)}</p>}
    </section>
  );
}
