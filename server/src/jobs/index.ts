export { JobRunner, type ClaimedJob, type JobStore, type QueueDefinition, type PeriodicDefinition, type JobRunnerOptions } from './runner';
export { defineQueue, enqueue, tableStore, stillHolds, pruneFinishedJobs, type TableQueue, type EnqueueOptions } from './table-queue';
export { nextRetryAt, retryDelayMs, type RetrySchedule } from './retry';
export { JobLeaseLost } from './errors';
