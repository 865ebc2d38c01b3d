import { sendingHoursSchema, WEEKDAY_LABELS, type SendingHoursInput } from '@masivo/contract/sending-hours';
import { useId } from 'react';

export const DEFAULT_SENDING_HOURS: SendingHoursInput = { days: [1, 2, 3, 4, 5], start: '09:00', end: '20:00', skip_holidays: false };

/** The first Spanish error of a window, or null when it is valid (or off). */
export function sendingHoursError(value: SendingHoursInput | null): string | null {
  if (value === null) return null;
  const parsed = sendingHoursSchema.safeParse(value);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'Horario de envío inválido');
}

/**
 * "Horario de envío": off, or days and a window in each recipient's local time (a window whose
 * end is before its start crosses midnight), optionally skipping the recipient's public holidays.
 */
export function SendingHoursFields({
  value,
  onChange,
  error,
}: {
  value: SendingHoursInput | null;
  onChange: (value: SendingHoursInput | null) => void;
  error?: string | null;
}) {
  const id = useId();
  const on = value !== null;
  const v = value ?? DEFAULT_SENDING_HOURS;
  const days = (v.days as number[]) ?? [];
  const set = (patch: Partial<SendingHoursInput>) => onChange({ ...v, ...patch });
  const toggleDay = (d: number) => set({ days: days.includes(d) ? days.filter((x) => x !== d) : [...days, d].sort((a, b) => a - b) });
  const crosses = on && /^\d\d:\d\d$/.test(v.start) && /^\d\d:\d\d$/.test(v.end) && v.end < v.start;
  return (
    <div className="space-y-4" data-testid="sending-hours">
      <label className="flex items-center gap-2 text-sm text-gray-700 max-sm:min-h-11">
        <input type="checkbox" checked={on} onChange={(e) => onChange(e.target.checked ? { ...DEFAULT_SENDING_HOURS } : null)} />
        Enviar solo dentro de un horario
      </label>
      {!on && <p className="text-xs text-gray-500">Sin horario: se envía a cualquier hora.</p>}
      {on && (
        <>
          <fieldset>
            <legend className="mb-1 text-sm font-medium text-gray-700">Días</legend>
            <div className="flex flex-wrap gap-3">
              {[1, 2, 3, 4, 5, 6, 7].map((d) => (
                <label key={d} className="flex items-center gap-1 text-sm text-gray-700 max-sm:min-h-11">
                  <input type="checkbox" checked={days.includes(d)} onChange={() => toggleDay(d)} />
                  {WEEKDAY_LABELS[d]}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="flex flex-wrap gap-4">
            <div>
              <label htmlFor={`${id}-start`} className="mb-1 block text-sm font-medium text-gray-700">
                Desde
              </label>
              <input id={`${id}-start`} type="time" className="rounded-md border border-gray-300 px-3 py-2 text-sm max-sm:min-h-11" value={v.start} onChange={(e) => set({ start: e.target.value })} />
            </div>
            <div>
              <label htmlFor={`${id}-end`} className="mb-1 block text-sm font-medium text-gray-700">
                Hasta
              </label>
              <input id={`${id}-end`} type="time" className="rounded-md border border-gray-300 px-3 py-2 text-sm max-sm:min-h-11" value={v.end} onChange={(e) => set({ end: e.target.value })} />
            </div>
          </div>
          <label className="flex items-center gap-2 text-sm text-gray-700 max-sm:min-h-11">
            <input type="checkbox" checked={!!v.skip_holidays} onChange={(e) => set({ skip_holidays: e.target.checked })} />
            Omitir los feriados del país del destinatario
          </label>
          <p className="text-xs text-gray-500">
            Se evalúa en la hora local de cada destinatario (su zona horaria de Kommo o la de su teléfono).
            {crosses ? ' La ventana cruza la medianoche: pertenece al día en que empieza.' : ''}
          </p>
        </>
      )}
      {error && (
        <p role="alert" className="text-sm text-red-600">
          {error}
        </p>
      )}
    </div>
  );
}
