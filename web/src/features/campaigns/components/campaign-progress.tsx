import type { Campaign, CampaignStatus } from '@masivo/contract/campaigns';
import { CampaignProgressBar, campaignProgress, campaignStatusOf } from '@/components/campaign-status';
import { campaignHoursNote } from '@/components/campaign-hours-note';

/** Spec: blue sending, green completed, yellow paused, red cancelled, gray otherwise. */
export const PROGRESS_COLORS: Record<CampaignStatus, string> = {
  sending: 'bg-blue-600',
  completed: 'bg-green-600',
  paused: 'bg-yellow-500',
  cancelled: 'bg-red-600',
  draft: 'bg-gray-400',
  scheduled: 'bg-gray-400',
  pending_approval: 'bg-gray-400',
};

type Counts = Pick<Campaign, 'total_recipients' | 'messages_sent' | 'failed_count' | 'skipped_count' | 'unknown_count'> & { status: string; hours_wait_until?: string | null };

export function CampaignProgress({ campaign: c }: { campaign: Counts }) {
  const s = campaignStatusOf(c.status);
  const percent = campaignProgress(c);
  const waiting = s === 'sending' && campaignHoursNote(c) !== null;
  return (
    <div className="space-y-2">
      <div className="flex items-center justify-between text-sm text-gray-600">
        <span>
          {c.messages_sent.toLocaleString('es-ES')} de {c.total_recipients.toLocaleString('es-ES')} mensajes enviados
        </span>
        <span className="font-medium">{percent}%</span>
      </div>
      <CampaignProgressBar campaign={c} label="Progreso de la campaña" className="h-3" barClassName={PROGRESS_COLORS[s]} />
      {/* Outside its sending hours nothing goes out: no pulsing "Enviando..." then (the note says when it resumes). */}
      {waiting && (
        <p className="flex items-center gap-2 text-sm text-yellow-700" data-testid="campaign-progress-waiting">
          <span className="h-2 w-2 rounded-full bg-yellow-500" aria-hidden="true" />
          <span>En espera: fuera del horario de envío</span>
        </p>
      )}
      {s === 'sending' && !waiting && (
        <p className="flex items-center gap-2 text-sm text-blue-600">
          {/* Only the dot pulses: a fading text drops below AA contrast at the bottom of each cycle. */}
          <span className="h-2 w-2 rounded-full bg-blue-600 motion-safe:animate-pulse" aria-hidden="true" />
          <span>Enviando...</span>
        </p>
      )}
    </div>
  );
}
