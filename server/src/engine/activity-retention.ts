import type { AppContext } from '../context';
import type { PeriodicDefinition } from '../jobs/index';
import { sweepActivity } from '../services/activity/activity-queries';

/**
 * The activity log's retention: once an hour (across processes, through the job runner's
 * `job_schedules` row), entries older than their organisation's `activity_retention_days` are
 * deleted in bounded batches, so a long backlog never holds one big delete. The only place that
 * removes entries. Counted in /metrics with the other retention jobs (data-retention.ts).
 */
export function activityRetention(ctx: AppContext): PeriodicDefinition {
  return {
    name: 'activity-retention',
    everyMs: 3600_000,
    run: async (signal) => {
      const deleted = await sweepActivity(ctx.db, { signal });
      ctx.metrics.retentionDeleted('activity_log', deleted);
      if (deleted) ctx.log.info({ deleted }, 'activity log: entries past retention deleted');
    },
  };
}
