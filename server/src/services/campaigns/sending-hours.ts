import { createRequire } from 'node:module';
import type HolidaysClass from 'date-holidays';
import type { SendingHoursValue } from '@masivo/contract/sending-hours';

/**
 * "Horario de envío", pure: days (ISO 1 = lunes … 7 = domingo) and a window HH:MM–HH:MM in the
 * recipient's local time. A window whose end is before its start crosses midnight and belongs
 * to the day it starts (Friday 20:00–02:00 runs into Saturday 02:00). Holidays (optional) are
 * the public holidays of the recipient's country, from a maintained library; a holiday cancels
 * the window that starts on it.
 */
export type SendingHours = SendingHoursValue;

const MINUTE = 60_000;
const DAY = 86_400_000;

interface LocalParts {
  year: number;
  month: number;
  day: number;
  isoDow: number;
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

function wallClock(at: number, timeZone: string): { y: number; mo: number; d: number; h: number; mi: number; s: number } {
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(at)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return { y: out.year!, mo: out.month!, d: out.day!, h: out.hour! % 24, mi: out.minute!, s: out.second! };
}

function localParts(at: number, timeZone: string): LocalParts {
  const w = wallClock(at, timeZone);
  const dow = new Date(Date.UTC(w.y, w.mo - 1, w.d)).getUTCDay();
  return { year: w.y, month: w.mo, day: w.d, isoDow: dow === 0 ? 7 : dow, minutes: w.h * 60 + w.mi };
}

/** Milliseconds the zone's wall clock is ahead of UTC at `at`. */
function offsetAt(at: number, timeZone: string): number {
  const w = wallClock(at, timeZone);
  return Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s) - Math.floor(at / 1000) * 1000;
}

/** The instant of a local date and time; a time skipped by a DST change maps to just after the gap. */
function zonedInstant(year: number, month: number, day: number, minutes: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, day) + minutes * MINUTE;
  const first = guess - offsetAt(guess, timeZone);
  const second = guess - offsetAt(first, timeZone);
  if (first === second) return first;
  // Either a DST gap (neither lands on the wall time asked) or an ambiguous hour: the later
  // consistent instant that is not before the wall time asked.
  return Math.max(first, second);
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const ymd = (y: number, m: number, d: number) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

const holidayCache = new Map<string, Set<string>>();

/**
 * The holidays library, loaded on first use: its data for every country is about 17 MB of the
 * process's memory, which only campaigns that skip holidays need.
 */
let holidaysLibrary: typeof HolidaysClass | null = null;
function Holidays(country: string): HolidaysClass {
  holidaysLibrary ??= createRequire(import.meta.url)('date-holidays') as typeof HolidaysClass;
  return new holidaysLibrary(country);
}

/** The public holidays of an ISO country in a year, as YYYY-MM-DD (empty for an unknown country). */
export function publicHolidays(country: string, year: number): Map<string, string> {
  const out = new Map<string, string>();
  try {
    if (!/^[A-Za-z]{2}$/.test(country)) return out;
    const hd = Holidays(country.toUpperCase());
    for (const h of hd.getHolidays(year) ?? []) {
      if (h.type === 'public') out.set(h.date.slice(0, 10), h.name);
    }
  } catch {
    // An unknown country has no holidays.
  }
  return out;
}

export function isPublicHoliday(country: string | null, date: string): boolean {
  if (!country) return false;
  const key = `${country}:${date.slice(0, 4)}`;
  let days = holidayCache.get(key);
  if (!days) holidayCache.set(key, (days = new Set(publicHolidays(country, Number(date.slice(0, 4))).keys())));
  return days.has(date);
}

/** Whether a date (YYYY-MM-DD) is a public holiday of a country; the library's by default. */
export type HolidayCheck = (country: string | null, date: string) => boolean;

function dayOpen(hours: SendingHours, country: string | null, y: number, m: number, d: number, holiday: HolidayCheck): boolean {
  const dow = new Date(Date.UTC(y, m - 1, d)).getUTCDay() || 7;
  return hours.days.includes(dow) && !(hours.skip_holidays && holiday(country, ymd(y, m, d)));
}

function shiftDate(y: number, m: number, d: number, days: number) {
  const t = new Date(Date.UTC(y, m - 1, d) + days * DAY);
  return { y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

/** Whether `at` falls inside the window for someone in `timeZone` (null hours: always). */
export function isWithinSendingHours(
  hours: SendingHours | null,
  timeZone: string,
  country: string | null,
  at: Date,
  holiday: HolidayCheck = isPublicHoliday,
): boolean {
  if (!hours) return true;
  const p = localParts(at.getTime(), timeZone);
  const start = toMinutes(hours.start);
  const end = toMinutes(hours.end);
  if (start < end) return p.minutes >= start && p.minutes < end && dayOpen(hours, country, p.year, p.month, p.day, holiday);
  if (p.minutes >= start) return dayOpen(hours, country, p.year, p.month, p.day, holiday);
  if (p.minutes < end) {
    const prev = shiftDate(p.year, p.month, p.day, -1);
    return dayOpen(hours, country, prev.y, prev.m, prev.d, holiday);
  }
  return false;
}

/**
 * The earliest moment at or after `from` when the window is open for someone in `timeZone`
 * (`from` itself when it already is); null when no day of the next two years opens (cannot
 * happen with at least one day, kept for safety).
 */
export function nextWindowOpening(
  hours: SendingHours | null,
  timeZone: string,
  country: string | null,
  from: Date,
  holiday: HolidayCheck = isPublicHoliday,
): Date | null {
  if (isWithinSendingHours(hours, timeZone, country, from, holiday)) return from;
  const h = hours!;
  const p = localParts(from.getTime(), timeZone);
  const start = toMinutes(h.start);
  for (let i = -1; i < 740; i++) {
    const day = shiftDate(p.year, p.month, p.day, i);
    if (!dayOpen(h, country, day.y, day.m, day.d, holiday)) continue;
    const at = zonedInstant(day.y, day.m, day.d, start, timeZone);
    if (at > from.getTime() && isWithinSendingHours(h, timeZone, country, new Date(at), holiday)) return new Date(at);
  }
  return null;
}

/** When the window open at `at` closes (the first instant outside it). */
function windowClose(hours: SendingHours, timeZone: string, at: number): number {
  const p = localParts(at, timeZone);
  const start = toMinutes(hours.start);
  const end = toMinutes(hours.end);
  const endDay = start > end && p.minutes >= start ? shiftDate(p.year, p.month, p.day, 1) : { y: p.year, m: p.month, d: p.day };
  const close = zonedInstant(endDay.y, endDay.m, endDay.d, end, timeZone);
  return close > at ? close : at + MINUTE;
}

/**
 * When a campaign finishes at the number's rate, sending each zone's recipients in order, only
 * while that zone's window is open: the time spent sending and the time spent waiting for a
 * window. Without hours, it is the count over the rate.
 */
export function estimateFinish(input: {
  now: Date;
  ratePerSecond: number;
  recipientsByZone: Array<{ timeZone: string; country: string | null; count: number }>;
  hours: SendingHours | null;
}): { finishAt: Date; sendingSeconds: number; waitingSeconds: number } {
  const rate = Math.max(input.ratePerSecond, 1e-9);
  let t = input.now.getTime();
  let sendingMs = 0;
  let waitingMs = 0;
  for (const group of input.recipientsByZone) {
    let remaining = Math.max(0, group.count);
    let guard = 0;
    while (remaining > 0 && guard++ < 10_000) {
      if (!input.hours) {
        const ms = (remaining / rate) * 1000;
        sendingMs += ms;
        t += ms;
        break;
      }
      const open = nextWindowOpening(input.hours, group.timeZone, group.country, new Date(t));
      if (!open) break;
      waitingMs += open.getTime() - t;
      t = open.getTime();
      const close = windowClose(input.hours, group.timeZone, t);
      const capacity = ((close - t) / 1000) * rate;
      if (capacity >= remaining) {
        const ms = (remaining / rate) * 1000;
        sendingMs += ms;
        t += ms;
        remaining = 0;
      } else {
        remaining -= capacity;
        sendingMs += close - t;
        t = close;
      }
    }
  }
  return { finishAt: new Date(Math.ceil(t)), sendingSeconds: sendingMs / 1000, waitingSeconds: waitingMs / 1000 };
}
