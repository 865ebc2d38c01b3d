import { describe, expect, it } from 'vitest';
import { sendingHoursSchema } from '@masivo/contract/campaigns';
import { recipientZone } from '../src/services/campaigns/recipient-zone';
import { estimateFinish, isWithinSendingHours, nextWindowOpening, publicHolidays, type SendingHours } from '../src/services/campaigns/sending-hours';

/** Pure rules of "Horario de envío": windows in local time, DST, midnight, holidays, zones, ETA. */

const hours = (h: Partial<SendingHours>): SendingHours => ({ days: [1, 2, 3, 4, 5, 6, 7], start: '09:00', end: '18:00', skip_holidays: false, ...h });
const at = (iso: string) => new Date(iso);

describe('windows across a DST change', () => {
  it('Europe/Madrid: the same local 09:00 is 08:00 UTC before the change and 07:00 UTC after', () => {
    const h = hours({});
    // Saturday 28 March 2026 19:00 CET → Sunday 29 March (CEST from 02:00) at 09:00.
    expect(nextWindowOpening(h, 'Europe/Madrid', 'ES', at('2026-03-27T18:00:00Z'))!.toISOString()).toBe('2026-03-28T08:00:00.000Z');
    expect(nextWindowOpening(h, 'Europe/Madrid', 'ES', at('2026-03-28T18:00:00Z'))!.toISOString()).toBe('2026-03-29T07:00:00.000Z');
    // 17:30 local is inside on both sides of the change; 18:00 local is not.
    expect(isWithinSendingHours(h, 'Europe/Madrid', 'ES', at('2026-03-28T16:30:00Z'))).toBe(true);
    expect(isWithinSendingHours(h, 'Europe/Madrid', 'ES', at('2026-03-29T15:30:00Z'))).toBe(true);
    expect(isWithinSendingHours(h, 'Europe/Madrid', 'ES', at('2026-03-29T16:00:00Z'))).toBe(false);
  });

  it('a start time the change skips opens just after the gap', () => {
    const h = hours({ start: '02:30', end: '05:00' });
    const open = nextWindowOpening(h, 'Europe/Madrid', 'ES', at('2026-03-28T23:00:00Z'))!;
    // 02:30 does not exist on 29 March in Madrid; the window opens within the hour that follows.
    expect(open.getTime()).toBeGreaterThanOrEqual(Date.parse('2026-03-29T01:00:00Z'));
    expect(open.getTime()).toBeLessThanOrEqual(Date.parse('2026-03-29T01:30:00Z'));
    expect(isWithinSendingHours(h, 'Europe/Madrid', 'ES', open)).toBe(true);
  });

  it('America/Santiago: 08:00 local is 12:00 UTC before September 6, 2026 and 11:00 UTC after', () => {
    const h = hours({ start: '08:00', end: '20:00' });
    expect(nextWindowOpening(h, 'America/Santiago', 'CL', at('2026-09-05T01:00:00Z'))!.toISOString()).toBe('2026-09-05T12:00:00.000Z');
    expect(nextWindowOpening(h, 'America/Santiago', 'CL', at('2026-09-06T01:00:00Z'))!.toISOString()).toBe('2026-09-06T11:00:00.000Z');
  });
});

describe('a window across midnight', () => {
  const h = hours({ days: [1, 2, 3, 4, 5], start: '20:00', end: '02:00' });
  it('belongs to the day it starts', () => {
    // Bogota is UTC−5. Friday 27 Nov 2026 21:00 and Saturday 01:30 local: Friday's window.
    expect(isWithinSendingHours(h, 'America/Bogota', 'CO', at('2026-11-28T02:00:00Z'))).toBe(true);
    expect(isWithinSendingHours(h, 'America/Bogota', 'CO', at('2026-11-28T06:30:00Z'))).toBe(true);
    // Saturday 20:30 and Monday 01:00 local: Saturday and Sunday are not sending days.
    expect(isWithinSendingHours(h, 'America/Bogota', 'CO', at('2026-11-29T01:30:00Z'))).toBe(false);
    expect(isWithinSendingHours(h, 'America/Bogota', 'CO', at('2026-11-30T06:00:00Z'))).toBe(false);
    // Saturday 03:00 local: past the end.
    expect(isWithinSendingHours(h, 'America/Bogota', 'CO', at('2026-11-28T08:00:00Z'))).toBe(false);
  });
  it('reopens on the next sending day at its start', () => {
    expect(nextWindowOpening(h, 'America/Bogota', 'CO', at('2026-11-28T08:00:00Z'))!.toISOString()).toBe('2026-12-01T01:00:00.000Z');
  });
});

describe('public holidays', () => {
  it('come from the library: Christmas is a public holiday in Argentina', () => {
    expect(publicHolidays('AR', 2026).has('2026-12-25')).toBe(true);
    expect(publicHolidays('ZZ', 2026).size).toBe(0);
  });
  it('are skipped only when asked', () => {
    const weekdays = hours({ days: [1, 2, 3, 4, 5] });
    const from = at('2026-12-25T10:00:00Z'); // Friday 25 Dec, 07:00 in Buenos Aires
    expect(nextWindowOpening(weekdays, 'America/Argentina/Buenos_Aires', 'AR', from)!.toISOString()).toBe('2026-12-25T12:00:00.000Z');
    expect(nextWindowOpening({ ...weekdays, skip_holidays: true }, 'America/Argentina/Buenos_Aires', 'AR', from)!.toISOString()).toBe(
      '2026-12-28T12:00:00.000Z',
    );
    // Another country's holiday does not close the window.
    expect(isWithinSendingHours({ ...weekdays, skip_holidays: true }, 'America/Argentina/Buenos_Aires', null, at('2026-12-25T13:00:00Z'))).toBe(true);
  });
});

describe('recipientZone', () => {
  const account = 'America/Argentina/Buenos_Aires';
  const zoneOf = (phone: string) => recipientZone({ phone, accountTimeZone: account });
  it.each([
    ['+5215512345678', 'America/Mexico_City', 'MX'],
    ['+526641234567', 'America/Tijuana', 'MX'],
    ['+5511987654321', 'America/Sao_Paulo', 'BR'],
    ['+5592987654321', 'America/Manaus', 'BR'],
    ['+13105551234', 'America/Los_Angeles', 'US'],
    ['+12125551234', 'America/New_York', 'US'],
    ['+14165551234', 'America/Toronto', 'CA'],
    ['+16045551234', 'America/Vancouver', 'CA'],
    ['+61298765432', 'Australia/Sydney', 'AU'],
    ['+74232123456', 'Asia/Vladivostok', 'RU'],
    ['+74951234567', 'Europe/Moscow', 'RU'],
    ['+573001234567', 'America/Bogota', 'CO'],
    ['+34612345678', 'Europe/Madrid', 'ES'],
  ])('%s → %s (area code of a multi-zone country, or the country)', (phone, zone, country) => {
    expect(zoneOf(phone)).toEqual({ timeZone: zone, country, source: 'phone' });
  });
  it('Argentina: one offset for the whole country, with or without the mobile 9', () => {
    const a = zoneOf('+5491122334455');
    const b = zoneOf('+542614455667');
    expect(a.country).toBe('AR');
    expect(a.timeZone).toBe(b.timeZone);
    const offset = (tz: string) => new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'shortOffset' }).format(at('2026-07-01T12:00:00Z'));
    expect(offset(a.timeZone)).toBe(offset(account));
  });
  it('the contact field wins when it holds an IANA name; anything else falls through', () => {
    expect(recipientZone({ phone: '+5215512345678', fieldValue: ' America/Bogota ', accountTimeZone: account })).toEqual({
      timeZone: 'America/Bogota',
      country: 'MX',
      source: 'field',
    });
    expect(recipientZone({ phone: '+5215512345678', fieldValue: 'Bogotá', accountTimeZone: account }).timeZone).toBe('America/Mexico_City');
    expect(recipientZone({ phone: '+5215512345678', fieldValue: 'Etc/../../x', accountTimeZone: account }).source).toBe('phone');
  });
  it("without a usable phone, the account's zone", () => {
    expect(recipientZone({ phone: null, accountTimeZone: 'America/Lima' })).toEqual({ timeZone: 'America/Lima', country: null, source: 'account' });
    expect(recipientZone({ phone: 'AR.abc123', accountTimeZone: 'America/Lima' }).source).toBe('account');
  });
});

describe('estimateFinish', () => {
  const now = at('2026-11-24T12:00:00Z'); // Tuesday, 07:00 in Bogota
  it('without hours: the count over the rate', () => {
    const r = estimateFinish({ now, ratePerSecond: 10, recipientsByZone: [{ timeZone: 'America/Bogota', country: 'CO', count: 1_000 }], hours: null });
    expect(r).toEqual({ finishAt: at('2026-11-24T12:01:40Z'), sendingSeconds: 100, waitingSeconds: 0 });
  });
  it('with hours: waits for each zone window and spills into the next day', () => {
    const h = hours({ days: [1, 2, 3, 4, 5], start: '20:00', end: '02:00' });
    // 7 h of sends at 1/s: Tuesday 20:00–02:00 (6 h), then Wednesday 20:00–21:00.
    const r = estimateFinish({ now, ratePerSecond: 1, recipientsByZone: [{ timeZone: 'America/Bogota', country: 'CO', count: 7 * 3600 }], hours: h });
    expect(r.finishAt.toISOString()).toBe('2026-11-26T02:00:00.000Z');
    expect(r.sendingSeconds).toBe(7 * 3600);
    expect(r.waitingSeconds).toBe(13 * 3600 + 18 * 3600);
  });
  it('zones in order: the second zone is sent inside its own window', () => {
    const h = hours({ start: '09:00', end: '10:00' });
    const r = estimateFinish({
      now: at('2026-11-24T14:00:00Z'), // 09:00 in Bogota, 15:00 in Madrid
      ratePerSecond: 1,
      recipientsByZone: [
        { timeZone: 'America/Bogota', country: 'CO', count: 1800 },
        { timeZone: 'Europe/Madrid', country: 'ES', count: 60 },
      ],
      hours: h,
    });
    // Bogota done at 14:30 UTC; Madrid opens next at 09:00 CET = 08:00 UTC on the 25th.
    expect(r.finishAt.toISOString()).toBe('2026-11-25T08:01:00.000Z');
    expect(r.sendingSeconds).toBe(1860);
  });
});

describe('sendingHoursSchema', () => {
  it('accepts a window and sorts the days', () => {
    expect(sendingHoursSchema.parse({ days: [5, 1], start: '20:00', end: '02:00' })).toEqual({ days: [1, 5], start: '20:00', end: '02:00', skip_holidays: false });
  });
  it.each([
    [{ days: [], start: '09:00', end: '18:00' }, 'Elige al menos un día para el horario de envío'],
    [{ days: [1, 1], start: '09:00', end: '18:00' }, 'Día de la semana repetido'],
    [{ days: [8], start: '09:00', end: '18:00' }, 'Día de la semana inválido'],
    [{ days: [1], start: '9:00', end: '18:00' }, 'La hora de inicio debe tener el formato HH:MM (00:00 a 23:59)'],
    [{ days: [1], start: '09:00', end: '24:00' }, 'La hora de fin debe tener el formato HH:MM (00:00 a 23:59)'],
    [{ days: [1], start: '09:00', end: '09:00' }, 'La hora de inicio y la de fin del horario de envío no pueden ser iguales'],
  ])('refuses %j in Spanish', (input, message) => {
    const r = sendingHoursSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toBe(message);
  });
});
