/** The job's lease moved on (cancelled, deleted, taken over by another process): it stops without an outcome. */
export class JobLeaseLost extends Error {
  constructor() {
    super('job lease lost');
    this.name = 'JobLeaseLost';
  }
}
