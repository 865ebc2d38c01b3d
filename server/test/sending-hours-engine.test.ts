import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Campaign } from '@masivo/contract/campaigns';
import { rowsOf } from '../src/db/sql';
import { nextWindowOpening, type SendingHours } from '../src/services/campaigns/sending-hours';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

/**
 * The sender claims only recipients whose local time is inside the campaign's window. The
 * window is computed from the clock, so the test holds at any time of day: it is open now in
 * Buenos Aires (UTC−3, phones +54) and closed in Tokyo (a contact whose zone field says so).
 */
let bed: EngineBed;
const AR = 'America/Argentina/Buenos_Aires';

beforeAll(async () => {
  bed = await startEngineBed({ numbers: [{ phoneNumberId: '7301', wabaId: '8301', token: 'tok-h', rate: 80 }], contacts: 4 });
  const res = await bed.t.app.inject({
    method: 'PUT',
    url: `/api/kommo/accounts/${bed.worlds[0]!.kommoAccountId}`,
    headers: bed.headers,
    payload: { time_zone_field: 'Zona horaria', time_zone: AR },
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json()).toMatchObject({ time_zone_field: 'Zona horaria', time_zone: AR });
  await bed.t.ctx.db.execute(sql`update contacts set custom_fields = custom_fields || '{"Zona horaria": "Asia/Tokyo"}'::jsonb
    where user_id = ${bed.userId} and kommo_id = 4`);
});
afterAll(() => bed?.close());

/** HH:MM in a zone, `minutes` from now. */
function localHHMM(timeZone: string, minutes: number): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(Date.now() + minutes * 60_000);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return `${get('hour')}:${get('minute')}`;
}

/** Open now in Buenos Aires (±1 h, across midnight when it falls so), closed in Tokyo (12 h ahead). */
const openInBuenosAires = (): SendingHours => ({ days: [1, 2, 3, 4, 5, 6, 7], start: localHHMM(AR, -60), end: localHHMM(AR, 60), skip_holidays: false });

async function launch(hours: SendingHours | null, name: string): Promise<Campaign> {
  const w = bed.worlds[0]!;
  const c = await createCampaign(bed.t.ctx, bed.userId, {
    name,
    kommo_account_id: w.kommoAccountId,
    whatsapp_account_id: w.whatsappAccountId,
    template_id: w.templateId,
    sending_hours: hours,
  });
  expect(c.sending_hours).toEqual(hours);
  return startCampaign(bed.t.ctx, bed.userId, c.id);
}

const sentCount = (s: Record<string, number>) => (s.sent ?? 0) + (s.delivered ?? 0) + (s.read ?? 0);

describe('sending hours in the engine', () => {
  it('claims only inside the window, shows when it resumes, and resumes when the hours change', async () => {
    const hours = openInBuenosAires();
    const c = await launch(hours, 'Horario');
    const zones = await rowsOf<{ kommo_id: number; time_zone: string; country: string | null }>(
      bed.t.ctx.db,
      sql`select ct.kommo_id, r.time_zone, r.country from campaign_recipients r join contacts ct on ct.id = r.contact_id
          where r.campaign_id = ${c.id} order by ct.kommo_id`,
    );
    expect(zones.map((z) => z.country)).toEqual(['AR', 'AR', 'AR', 'AR']);
    expect(zones[3]!.time_zone).toBe('Asia/Tokyo');
    expect(zones.slice(0, 3).every((z) => z.time_zone !== 'Asia/Tokyo')).toBe(true);

    const waiting = await waitFor(
      () => bed.campaign(c.id),
      (x) => x.hours_wait_until !== null && x.hours_wait_until !== undefined && x.messages_sent === 3,
      15_000,
      'the Tokyo recipient waits for its window',
    );
    expect(waiting.status).toBe('sending');
    expect(waiting.pending_count).toBe(1);
    const expected = nextWindowOpening(hours, 'Asia/Tokyo', 'AR', new Date())!;
    expect(Math.abs(Date.parse(waiting.hours_wait_until!) - expected.getTime())).toBeLessThan(120_000);
    expect(Date.parse(waiting.hours_wait_until!)).toBeGreaterThan(Date.now());
    // Nothing more goes out while it waits.
    await new Promise((r) => setTimeout(r, 600));
    expect(sentCount(await bed.statuses(c.id))).toBe(3);
    expect(bed.sim.messages().filter((m) => m.to === '5491100000004')).toHaveLength(0);

    // The operator widens the hours while it is sending: it resumes by itself.
    const tokyo: SendingHours = { ...hours, start: localHHMM('Asia/Tokyo', -60), end: localHHMM('Asia/Tokyo', 60) };
    const res = await bed.t.app.inject({ method: 'PUT', url: `/api/campaigns/${c.id}`, headers: bed.headers, payload: { sending_hours: tokyo } });
    expect(res.statusCode, res.body).toBe(200);
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 15_000, 'campaign completed');
    expect(done.messages_sent).toBe(4);
    expect(done.hours_wait_until).toBeNull();
  });

  it("skips a public holiday of the recipient's country when asked", async () => {
    await bed.t.ctx.db.execute(sql`update contacts set custom_fields = custom_fields - 'Zona horaria' where user_id = ${bed.userId}`);
    // Today in Buenos Aires is made a holiday of Argentina (unless it already is one).
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: AR }).format(new Date());
    const inserted = await rowsOf(
      bed.t.ctx.db,
      sql`insert into public_holidays (country, day, name) values ('AR', ${today}::date, 'Feriado de prueba') on conflict do nothing returning 1`,
    );
    try {
      const hours = { ...openInBuenosAires(), skip_holidays: true };
      const c = await launch(hours, 'Feriado');
      const waiting = await waitFor(() => bed.campaign(c.id), (x) => !!x.hours_wait_until, 15_000, 'waiting for the day after the holiday');
      expect(waiting.messages_sent).toBe(0);
      // It reopens on a later day, not today.
      expect(new Intl.DateTimeFormat('en-CA', { timeZone: AR }).format(new Date(waiting.hours_wait_until!))).not.toBe(today);
      await new Promise((r) => setTimeout(r, 600));
      expect((await bed.campaign(c.id)).messages_sent).toBe(0);
      // Holidays no longer skipped: it resumes by itself.
      const res = await bed.t.app.inject({
        method: 'PUT',
        url: `/api/campaigns/${c.id}`,
        headers: bed.headers,
        payload: { sending_hours: { ...hours, skip_holidays: false } },
      });
      expect(res.statusCode, res.body).toBe(200);
      const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 15_000, 'completed once holidays are not skipped');
      expect(done.messages_sent).toBe(4);
    } finally {
      if (inserted.length) await bed.t.ctx.db.execute(sql`delete from public_holidays where country = 'AR' and day = ${today}::date and name = 'Feriado de prueba'`);
    }
  });
});
