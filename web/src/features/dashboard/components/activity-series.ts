import { deliveryRate, readRate, type ActivityDay, type DashboardActivity } from '@masivo/contract/stats';

/** The selector's value for every number together. */
export const ALL_NUMBERS = 'all';

export interface ActivityPoint extends ActivityDay {
  delivery_rate: number | null;
  read_rate: number | null;
}

/** The days of one number, or of every number summed, with each day's rates. */
export function activitySeries(activity: DashboardActivity, selected: string): ActivityPoint[] {
  const numbers = selected === ALL_NUMBERS ? activity.numbers : activity.numbers.filter((n) => numberKey(n.whatsapp_account_id) === selected);
  const days = new Map<string, ActivityDay>();
  for (const n of numbers)
    for (const d of n.days) {
      const sum = days.get(d.day) ?? { day: d.day, sent: 0, delivered: 0, read: 0, failed: 0 };
      days.set(d.day, { day: d.day, sent: sum.sent + d.sent, delivered: sum.delivered + d.delivered, read: sum.read + d.read, failed: sum.failed + d.failed });
    }
  return [...days.values()]
    .sort((a, b) => a.day.localeCompare(b.day))
    .map((d) => ({ ...d, delivery_rate: deliveryRate(d), read_rate: readRate(d) }));
}

/** The window's totals and rates. */
export function activityTotals(points: ActivityDay[]) {
  const t = points.reduce((s, d) => ({ sent: s.sent + d.sent, delivered: s.delivered + d.delivered, read: s.read + d.read, failed: s.failed + d.failed }), {
    sent: 0,
    delivered: 0,
    read: 0,
    failed: 0,
  });
  return { ...t, delivery_rate: deliveryRate(t), read_rate: readRate(t) };
}

/** A number's selector value (the deleted numbers' row has no id). */
export const numberKey = (id: number | null) => (id === null ? 'deleted' : String(id));
