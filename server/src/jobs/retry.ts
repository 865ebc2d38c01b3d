/**
 * When a failed job runs again: `baseMs` after the first failure, doubling up to `maxMs`;
 * after `maxAttempts` failed runs it is given up (the store records the failure for good).
 */
export interface RetrySchedule {
  baseMs: number;
  maxMs: number;
  maxAttempts: number;
}

/** The delay before run `attempt + 1`, `attempt` being the failed runs so far (1 after the first failure). */
export function retryDelayMs(schedule: RetrySchedule, attempt: number): number {
  return Math.min(schedule.baseMs * 2 ** Math.max(0, attempt - 1), schedule.maxMs);
}

/** When the job runs again after its `attempt`-th failure, or null when it is given up. */
export function nextRetryAt(schedule: RetrySchedule, attempt: number, now = Date.now()): Date | null {
  if (attempt >= schedule.maxAttempts) return null;
  return new Date(now + retryDelayMs(schedule, attempt));
}
