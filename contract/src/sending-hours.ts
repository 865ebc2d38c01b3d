import { z } from 'zod';

/** ISO weekdays: 1 = lunes … 7 = domingo. */
export const WEEKDAY_LABELS: Record<number, string> = { 1: 'Lun', 2: 'Mar', 3: 'Mié', 4: 'Jue', 5: 'Vie', 6: 'Sáb', 7: 'Dom' };
export const HOURS_WAIT_LABEL = 'Fuera del horario de envío';

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;
const time = (label: string) =>
  z.string({ error: `La hora de ${label} es requerida` }).trim().regex(HHMM, `La hora de ${label} debe tener el formato HH:MM (00:00 a 23:59)`);

/**
 * "Horario de envío": the days and the window, in each recipient's local time. A window whose
 * end is before its start crosses midnight (20:00–02:00 belongs to the day it starts).
 */
export const sendingHoursSchema = z
  .strictObject({
    days: z
      .array(
        z.coerce.number({ error: 'Día de la semana inválido' }).int('Día de la semana inválido').min(1, 'Día de la semana inválido').max(7, 'Día de la semana inválido'),
        { error: 'Los días del horario de envío son requeridos' },
      )
      .min(1, 'Elige al menos un día para el horario de envío')
      .max(7, 'Día de la semana repetido')
      .refine((d) => new Set(d).size === d.length, 'Día de la semana repetido')
      .transform((d) => [...d].sort((a, b) => a - b)),
    start: time('inicio'),
    end: time('fin'),
    skip_holidays: z.boolean({ error: 'Omitir feriados debe ser sí o no' }).optional().default(false),
  }, { error: 'Horario de envío inválido' })
  .refine((h) => h.start !== h.end, { message: 'La hora de inicio y la de fin del horario de envío no pueden ser iguales', path: ['end'] });
/** The stored value as the API returns it (no transforms: response schemas only describe). */
export const sendingHoursViewSchema = z.object({
  days: z.array(z.number()),
  start: z.string(),
  end: z.string(),
  skip_holidays: z.boolean(),
});

export type SendingHoursInput = z.input<typeof sendingHoursSchema>;
export type SendingHoursValue = z.output<typeof sendingHoursSchema>;

/** An IANA zone name the runtime knows (America/Bogota); anything else is refused. */
const zoneChecks = new Map<string, boolean>();

export function isValidTimeZone(name: string): boolean {
  if (!name || name.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(name)) return false;
  let ok = zoneChecks.get(name);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: name });
      ok = true;
    } catch {
      ok = false;
    }
    // Building a formatter costs about a millisecond: each name is checked once.
    if (zoneChecks.size < 10_000) zoneChecks.set(name, ok);
  }
  return ok;
}

export const timeZoneSchema = z
  .string({ error: 'La zona horaria es requerida' })
  .trim()
  .refine(isValidTimeZone, 'Zona horaria inválida: usa un nombre como America/Bogota');

export const DEFAULT_ACCOUNT_TIME_ZONE = 'America/Argentina/Buenos_Aires';
