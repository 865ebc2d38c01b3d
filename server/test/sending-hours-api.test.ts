import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { createTestApp, type TestApp } from './helpers/app';
import { refreshHolidays } from '../src/services/campaigns/recipient-zones-freeze';

/** "Horario de envío" through the API: validation in Spanish, the number's default, the Kommo zone settings. */
let t: TestApp;
let owner: { headers: { authorization: string }; userId: number };
let w: CampaignWorld;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp();
  w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, { number: { phoneNumberId: '7401', wabaId: '8401', token: 'tok' }, contacts: 2 });
});
afterAll(() => t.close());

const call = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) =>
  t.app.inject({ method, url, headers: owner.headers, ...(payload === undefined ? {} : { payload: payload as object }) });
const base = () => ({ name: 'Con horario', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId });
const campaignCount = async () => Number((await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from campaigns where user_id = ${owner.userId}`))[0]!.n);

describe('sending hours on the campaign payloads', () => {
  it.each([
    [{ days: [], start: '09:00', end: '18:00' }, 'sending_hours.days: Elige al menos un día para el horario de envío'],
    [{ days: [1], start: '25:00', end: '18:00' }, 'sending_hours.start: La hora de inicio debe tener el formato HH:MM (00:00 a 23:59)'],
    [{ days: [1], start: '09:00', end: '09:00' }, 'sending_hours.end: La hora de inicio y la de fin del horario de envío no pueden ser iguales'],
    [{ days: [1], start: '09:00', end: '18:00', skip_holidays: 'si' }, 'sending_hours.skip_holidays: Omitir feriados debe ser sí o no'],
    ['siempre', 'sending_hours: Horario de envío inválido'],
  ])('refuses %j with a Spanish 400 and writes nothing', async (hours, message) => {
    const before = await campaignCount();
    const res = await call('POST', '/api/campaigns', { ...base(), sending_hours: hours });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe(message);
    expect(await campaignCount()).toBe(before);
  });

  it("starts from the number's default, which the campaign can change or turn off", async () => {
    const weekdays = { days: [1, 2, 3, 4, 5], start: '09:00', end: '20:00', skip_holidays: true };
    const acc = await call('PUT', `/api/whatsapp-accounts/${w.whatsappAccountId}`, { name: 'Cuenta', default_sending_hours: weekdays });
    expect(acc.statusCode, acc.body).toBe(200);
    expect(acc.json().default_sending_hours).toEqual(weekdays);
    const badAcc = await call('PUT', `/api/whatsapp-accounts/${w.whatsappAccountId}`, { name: 'Cuenta', default_sending_hours: { days: [1], start: 'x', end: '10:00' } });
    expect(badAcc.statusCode).toBe(400);

    const inherited = await call('POST', '/api/campaigns', base());
    expect(inherited.statusCode, inherited.body).toBe(201);
    expect(inherited.json().sending_hours).toEqual(weekdays);
    expect(inherited.json().hours_wait_until).toBeNull();

    const off = await call('POST', '/api/campaigns', { ...base(), sending_hours: null });
    expect(off.json().sending_hours).toBeNull();

    const own = await call('POST', '/api/campaigns', { ...base(), sending_hours: { days: [6, 7], start: '20:00', end: '02:00' } });
    expect(own.json().sending_hours).toEqual({ days: [6, 7], start: '20:00', end: '02:00', skip_holidays: false });

    const id = inherited.json().id;
    const edited = await call('PUT', `/api/campaigns/${id}`, { sending_hours: { days: [7], start: '10:00', end: '12:00', skip_holidays: false } });
    expect(edited.statusCode, edited.body).toBe(200);
    expect((await call('GET', `/api/campaigns/${id}`)).json().sending_hours).toEqual({ days: [7], start: '10:00', end: '12:00', skip_holidays: false });
    const bad = await call('PUT', `/api/campaigns/${id}`, { sending_hours: { days: [7], start: '10:00' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('sending_hours.end: La hora de fin es requerida');
    const cleared = await call('PUT', `/api/campaigns/${id}`, { sending_hours: null });
    expect(cleared.json().sending_hours).toBeNull();
  });
});

describe('the Kommo account zone settings', () => {
  it('accepts an IANA zone and a field name, refuses an unknown zone in Spanish', async () => {
    const url = `/api/kommo/accounts/${w.kommoAccountId}`;
    const ok = await call('PUT', url, { time_zone: 'America/Bogota', time_zone_field: 'Zona horaria' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ time_zone: 'America/Bogota', time_zone_field: 'Zona horaria' });
    const bad = await call('PUT', url, { time_zone: 'Bogota' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe('time_zone: Zona horaria inválida: usa un nombre como America/Bogota');
    const cleared = await call('PUT', url, { time_zone_field: '' });
    expect(cleared.json()).toMatchObject({ time_zone: 'America/Bogota', time_zone_field: null });
  });
});

describe('zones of a frozen audience', () => {
  it('are computed at the freeze only with hours, and when hours are set later', async () => {
    const zones = async (id: number) =>
      rowsOf<{ time_zone: string | null; country: string | null }>(t.ctx.db, sql`select time_zone, country from campaign_recipients where campaign_id = ${id} order by id`);
    const off = (await call('POST', '/api/campaigns', { ...base(), sending_hours: null })).json();
    const started = await call('POST', `/api/campaigns/${off.id}/start`);
    expect(started.statusCode, started.body).toBe(200);
    expect(await zones(off.id)).toEqual([
      { time_zone: null, country: null },
      { time_zone: null, country: null },
    ]);
    // Sending (no engine runs here): the hours alone may change, and the recipients get their zones.
    const res = await call('PUT', `/api/campaigns/${off.id}`, { sending_hours: { days: [1, 2, 3, 4, 5, 6, 7], start: '08:00', end: '21:00' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('sending');
    const after = await zones(off.id);
    expect(after.map((z) => z.country)).toEqual(['AR', 'AR']);
    expect(after.every((z) => z.time_zone && z.time_zone.includes('Buenos_Aires'))).toBe(true);
    // Anything else still waits for a pause.
    const other = await call('PUT', `/api/campaigns/${off.id}`, { name: 'Otro nombre', sending_hours: null });
    expect(other.statusCode).toBe(409);
  });

  it('the scheduler keeps the holidays of sending campaigns stored, once a day', async () => {
    await t.ctx.db.execute(sql`update campaigns set sending_hours = jsonb_set(sending_hours, '{skip_holidays}', 'true')
      where user_id = ${owner.userId} and status = 'sending'`);
    const next = new Date().getUTCFullYear() + 1;
    await t.ctx.db.execute(sql`delete from public_holidays where country = 'AR' and extract(year from day) = ${next}`);
    await t.ctx.db.execute(sql`delete from public_holiday_years where country = 'AR' and year = ${next}`);
    await refreshHolidays(t.ctx.db);
    const [row] = await rowsOf<{ n: number }>(
      t.ctx.db,
      sql`select count(*)::int as n from public_holidays where country = 'AR' and day = ${`${next}-12-25`}::date`,
    );
    expect(Number(row!.n)).toBe(1);
  });
});
