import { timeZoneLabel } from '../lib/format';
import { HOURS_WAIT_LABEL } from '@masivo/contract/sending-hours';

interface HoursFields {
  status: string;
  hours_wait_until?: string | null;
}

/** "martes, 25/11, 20:00 (GMT-3)" in the operator's browser time, naming its zone. */
export function formatResume(iso: string, timeZone?: string): string {
  const d = new Date(iso);
  const day = new Intl.DateTimeFormat('es-ES', { weekday: 'long', day: '2-digit', month: '2-digit', timeZone }).format(d);
  const time = new Intl.DateTimeFormat('es-ES', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }).format(d);
  return `${day}, ${time} (${timeZoneLabel(d, timeZone)})`;
}

/**
 * "Fuera del horario de envío · reanuda martes 25/11, 20:00 (GMT-3)" while every due recipient is
 * outside its window (the earliest moment one opens, in the browser's time).
 */
export function campaignHoursNote(c: HoursFields, now = Date.now(), timeZone?: string): string | null {
  if (c.status !== 'sending' || !c.hours_wait_until || new Date(c.hours_wait_until).getTime() <= now) return null;
  return `${HOURS_WAIT_LABEL} · reanuda ${formatResume(c.hours_wait_until, timeZone)}`;
}

export function CampaignHoursNote({ campaign }: { campaign: HoursFields }) {
  const note = campaignHoursNote(campaign);
  return note ? (
    <p className="mt-1 text-xs text-yellow-700" data-testid="campaign-hours-note">
      {note}
    </p>
  ) : null;
}
