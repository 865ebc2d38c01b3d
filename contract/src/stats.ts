import { z } from 'zod';
import { timeZoneSchema } from './sending-hours';

/**
 * Charts: what a campaign's detail screen and the dashboard draw. Every count is of
 * the signed-in user's own recipients; times are bucketed in the browser's IANA zone (`tz`,
 * UTC when absent).
 */

/** The timeline of a campaign returns at most this many points. */
export const STATS_MAX_POINTS = 300;
/** Bucket widths the timeline may use, finest first: the first that fits STATS_MAX_POINTS wins. */
export const STATS_BUCKET_MINUTES = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;

const count = z.number().int().nonnegative();

const zoneQuery = z.object({
  tz: timeZoneSchema.optional(),
});

export const campaignStatsQuerySchema = zoneQuery;
export type CampaignStatsQuery = z.infer<typeof campaignStatsQuerySchema>;

export const statsPointSchema = z.object({
  /** The bucket's start (ISO 8601 instant). */
  at: z.string(),
  sent: count,
  delivered: count,
  read: count,
});
export type StatsPoint = z.infer<typeof statsPointSchema>;

export const campaignFunnelSchema = z.object({
  /** Recipients the audience freeze admitted (the pre-flight's "se intentarán"): not skipped there. */
  attempted: count,
  /** Meta accepted the message (`sent_at`). */
  sent: count,
  /** Meta reported it delivered (`delivered_at`, or read, which implies delivered). */
  delivered: count,
  read: count,
  /** The person answered at least once (`replied_at`). */
  replied: count,
});
export type CampaignFunnel = z.infer<typeof campaignFunnelSchema>;

export const FUNNEL_STEPS = ['attempted', 'sent', 'delivered', 'read', 'replied'] as const;
export const FUNNEL_LABELS: Record<(typeof FUNNEL_STEPS)[number], string> = {
  attempted: 'Intentados',
  sent: 'Enviados',
  delivered: 'Entregados',
  read: 'Leídos',
  replied: 'Respondieron',
};

export const failureByCodeSchema = z.object({
  /** Meta's error code; null when the failure carried none. */
  code: z.number().int().nullable(),
  description: z.string(),
  count: count,
});
export type FailureByCode = z.infer<typeof failureByCodeSchema>;

export const campaignStatsSchema = z.object({
  /** Width of each timeline bucket, in minutes. */
  bucket_minutes: z.number().int().positive(),
  time_zone: z.string(),
  timeline: z.array(statsPointSchema),
  funnel: campaignFunnelSchema,
  failures: z.array(failureByCodeSchema),
  /**
   * When these figures were last brought up to date (ISO): the charts are read from rollups a
   * background job folds from the recipients every few seconds, off the send path. Null: none yet.
   */
  folded_at: z.string().nullable(),
});
export type CampaignStats = z.infer<typeof campaignStatsSchema>;

/** The dashboard's window: the last `days` days, today included. */
export const DASHBOARD_DAYS_MAX = 90;
export const dashboardActivityQuerySchema = zoneQuery.extend({
  days: z.coerce
    .number({ error: 'Los días deben ser un número' })
    .int('Los días deben ser un número entero')
    .min(1, 'Los días deben ser al menos 1')
    .max(DASHBOARD_DAYS_MAX, `Los días no pueden ser más de ${DASHBOARD_DAYS_MAX}`)
    .optional(),
});
export type DashboardActivityQuery = z.infer<typeof dashboardActivityQuerySchema>;

export const activityDaySchema = z.object({
  /** The local day (YYYY-MM-DD in `time_zone`). */
  day: z.string(),
  /** Messages Meta accepted that day. */
  sent: count,
  /** Of those, delivered (at any time since). */
  delivered: count,
  /** Of those, read. */
  read: count,
  /** Recipients that failed that day. */
  failed: count,
});
export type ActivityDay = z.infer<typeof activityDaySchema>;

export const numberActivitySchema = z.object({
  /** null: recipients of campaigns whose number was deleted. */
  whatsapp_account_id: z.number().int().nullable(),
  name: z.string(),
  phone: z.string().nullable(),
  days: z.array(activityDaySchema),
});
export type NumberActivity = z.infer<typeof numberActivitySchema>;

export const dashboardActivitySchema = z.object({
  days: z.number().int().positive(),
  time_zone: z.string(),
  /** First and last local day of the window. */
  from: z.string(),
  to: z.string(),
  numbers: z.array(numberActivitySchema),
  /** When these figures were last brought up to date (ISO; the oldest of the user's campaigns). Null: nothing folded yet. */
  folded_at: z.string().nullable(),
});
export type DashboardActivity = z.infer<typeof dashboardActivitySchema>;

/** Delivery rate: delivered / sent; null when nothing was sent. */
export const deliveryRate = (d: Pick<ActivityDay, 'sent' | 'delivered'>): number | null => (d.sent ? d.delivered / d.sent : null);
/** Read rate: read / delivered (Meta's definition); null when nothing was delivered. */
export const readRate = (d: Pick<ActivityDay, 'delivered' | 'read'>): number | null => (d.delivered ? d.read / d.delivered : null);

/**
 * `GET /api/dashboard/pending`: the "Mensajes Pendientes" card. The spec's sum over sending
 * campaigns of total_recipients − messages_sent, plus the recipients deferred by Meta's
 * per-user marketing limit that wait for their automatic retry (in sending or completed
 * campaigns) and are not already inside that difference.
 */
export const dashboardPendingSchema = z.object({
  pending_messages: count,
  /** Of those, recipients deferred by the marketing limit, waiting for their retry. */
  deferred: count,
});
export type DashboardPending = z.infer<typeof dashboardPendingSchema>;
