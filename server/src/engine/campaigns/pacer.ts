/**
 * Spaces the sends of one WhatsApp number so that no one-second window ever holds more than
 * its rate, as Meta counts them on arrival:
 * - sends are spaced evenly at 1 % under the rate (SAFETY), so jitter on the way cannot
 *   push an extra send into someone's one-second window;
 * - slots missed while the event loop was busy (a database write, GC) may be caught up, in
 *   small lumps only (a burst would reach the receiver as one lump it then timestamps over
 *   several ms), so the rate holds on a loaded machine; none are owed after idling;
 * - and a ring of the last `rate` sends, timed when each request actually reached the socket
 *   (a request may wait for a connection), refuses any send that would put `rate + 1` sends
 *   within WINDOW_MS + GUARD_MS: whatever happened before, no window can overfill.
 *
 * `jitterMs` widens that last check for a receiver that timestamps requests late when it is
 * busy: a send counts as happening up to jitterMs after it was written (but never after its
 * answer arrived, which bounds the receiver's own time).
 */
const SAFETY = 0.99;
const WINDOW_MS = 1000;
/** Room for the receiver's own jitter: it timestamps requests when it gets round to them. */
const GUARD_MS = 12;
const CATCH_UP_SLOTS = 5;
const MIN_CATCH_UP_MS = 100;
/**
 * Catching up, at most this many sends per interval: twice the pace for slow numbers, up to
 * four sends a millisecond for fast ones (timers fire a millisecond apart at best).
 */
const catchUpPace = (intervalMs: number) => Math.max(2, Math.ceil(4 / intervalMs));

/** One send in the ring; `at` stays Infinity until the request is on the socket. */
export interface PacedSend {
  at: number;
}

export class Pacer {
  private interval = 0;
  private nextAt = 0;
  private ring: PacedSend[] = [];
  private head = 0;
  private heldUntil = 0;
  private rate = 0;
  private rested = true;
  /** Decision times of the last few sends (catchUpPace of them), oldest first. */
  private recentTakes: number[] = [];

  constructor(
    ratePerSecond: number,
    private readonly now: () => number = () => performance.now(),
    private readonly jitterMs = 0,
  ) {
    this.setRate(ratePerSecond);
  }

  setRate(ratePerSecond: number) {
    const rate = Math.max(1, Math.floor(ratePerSecond));
    if (rate === this.rate) return;
    // Keep the most recent sends so the window check stays valid across the change.
    const recent = this.inOrder().slice(-rate);
    this.rate = rate;
    this.interval = WINDOW_MS / (rate * SAFETY);
    this.ring = recent;
    this.head = 0;
  }

  get ratePerSecond() {
    return this.rate;
  }

  /** Milliseconds until the next send may go out (0 = now). */
  delay(): number {
    const t = this.now();
    let wait = Math.max(this.nextAt - t, this.heldUntil - t);
    if (this.recentTakes.length >= catchUpPace(this.interval)) wait = Math.max(wait, this.recentTakes[0] + this.interval - t);
    if (this.ring.length === this.rate) {
      const oldest = this.ring[this.head].at;
      // Still waiting for its connection: its time is not known yet.
      wait = Math.max(wait, oldest === Infinity ? 1 : oldest + WINDOW_MS + GUARD_MS - t);
    }
    return Math.max(0, wait);
  }

  /** Records a send decided now (call only when delay() is 0); mark it sent with `sent()`. */
  take(): PacedSend {
    const t = this.now();
    this.recentTakes.push(t);
    while (this.recentTakes.length > catchUpPace(this.interval)) this.recentTakes.shift();
    const entry: PacedSend = { at: Infinity };
    if (this.ring.length < this.rate) this.ring.push(entry);
    else {
      this.ring[this.head] = entry;
      this.head = (this.head + 1) % this.rate;
    }
    const catchUp = this.rested ? 0 : Math.max(MIN_CATCH_UP_MS, CATCH_UP_SLOTS * this.interval);
    this.rested = false;
    this.nextAt = Math.max(this.nextAt, t - catchUp) + this.interval;
    return entry;
  }

  /** The request reached the socket (or failed before): its window starts now. */
  sent(entry: PacedSend): void {
    if (entry.at === Infinity) entry.at = this.now() + this.jitterMs;
  }

  /** Its answer arrived: the receiver had counted it by now at the latest. */
  answered(entry: PacedSend): void {
    this.sent(entry);
    entry.at = Math.min(entry.at, this.now());
  }

  /** Nothing to send right now: missed slots are not owed (no burst when work comes back). */
  idle(): void {
    this.rested = true;
  }

  /** How much longer sends are held (0: not held). */
  heldForMs(): number {
    return Math.max(0, this.heldUntil - this.now());
  }

  /** Meta said the number is over its throughput (130429): hold all sends for a while. */
  hold(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.now() + ms);
  }

  private inOrder(): PacedSend[] {
    if (this.ring.length < this.rate) return [...this.ring];
    return [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
  }
}
