import { JobLeaseLost } from '../../jobs/errors';

/**
 * A sync that stops on purpose rather than on a Kommo failure; `message` is Spanish and is
 * what the account card shows.
 */
export class SyncStopError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyncStopError';
  }
}

/** The lease moved on: the account was deleted, restarted, edited or its sync cancelled. */
export class LeaseLostError extends JobLeaseLost {
  constructor() {
    super();
    this.name = 'LeaseLostError';
  }
}
