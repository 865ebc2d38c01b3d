/**
 * Spaces the sends of one WhatsApp number so that no one-second window ever holds more than
 * its rate, as Meta counts them: on ARRIVAL, in a sliding one-second window. The network
 * delays each request by a different amount (a long-tailed jitter), so requests spaced
 * evenly here bunch up there. What the sender knows for sure about each request:
 * - it arrives no earlier than it was written to the socket;
 * - it arrived (and was counted) before its answer came back.
 * Each send therefore carries `at`, the latest time it can have been counted (its answer's
 * time, or written + UNANSWERED_MS while unanswered), and the window rule is: a send may be
 * written at t only if fewer than `rate` earlier sends have `at` > t − 1 s. Any window at the
 * receiver holding rate + 1 arrivals would contain the last-written of them, j, and `rate`
 * earlier ones counted after arrival(j) − 1 s ≥ t(j) − 1 s: the rule refused exactly that.
 * So no window can overfill, whatever the jitter and whatever order requests arrive in.
 *
 * The price is the round trip of one send per window (about 2 % at a 20 ms round trip). Half
 * the shortest round trip seen lately is latency every request has on the way in, so it is
 * credited back: the margin kept is mostly the jitter, not the distance to Meta.
 * docs/architecture/campaign-engine.md ("Campaigns: the sender") explains this margin with figures.
 *
 * Besides that rule:
 * - sends are spaced evenly, a little faster than the rate (the window rule sets the pace),
 *   so a window never starts with a burst;
 * - slots missed while the event loop was busy (a database write, GC) may be caught up, in
 *   small lumps only, so the rate holds on a loaded machine; none are owed after idling;
 * - `jitterMs` widens the unanswered bound for a receiver that timestamps requests late when
 *   it is busy, and then no round trip is credited.
 */
const WINDOW_MS = 1000;
/**
 * A request not answered yet is taken to have been counted this long after it was written.
 * Only slow answers meet this bound (the answer is the real proof), so it is generous: a
 * receiver whose event loop is busy may count a request long after it was written.
 */
export const UNANSWERED_MS = 1000;
/**
 * Credited latency: half the shortest round trip seen lately (the way in is about half of
 * it), minus this much for measuring noise.
 */
const RTT_GUARD_MS = 1;
/**
 * The shortest round trip is looked for over two epochs of this many answers: enough for the
 * minimum to sit on the latency floor, few enough that a route change is followed. Nothing is
 * credited before the first epoch is complete.
 */
const RTT_EPOCH = 128;
/** Even spacing runs this much faster than the rate: the window rule, not the spacing, sets the pace. */
const SPACING = 1.05;
const CATCH_UP_SLOTS = 5;
const MIN_CATCH_UP_MS = 100;
/**
 * Catching up, at most this many sends per interval: twice the pace for slow numbers, up to
 * four sends a millisecond for fast ones (timers fire a millisecond apart at best).
 */
const catchUpPace = (intervalMs: number) => Math.max(2, Math.ceil(4 / intervalMs));

/** One send, as the window rule sees it. */
export interface PacedSend {
  /** When the request reached the socket; Infinity until then. */
  writtenAt: number;
  /** Latest time the receiver can have counted it; Infinity until the request is written. */
  at: number;
}

export class Pacer {
  private interval = 0;
  private nextAt = 0;
  /** Sends that may still share a window with the next one (at most `rate` of them, more only after a rate cut). */
  private recent: PacedSend[] = [];
  private heldUntil = 0;
  private rate = 0;
  private rested = true;
  /** Decision times of the last few sends (catchUpPace of them), oldest first. */
  private recentTakes: number[] = [];
  /** Shortest round trip in the current and the previous epoch. */
  private rttNow = Infinity;
  private rttBefore = Infinity;
  private epochCount = 0;

  constructor(
    ratePerSecond: number,
    private readonly now: () => number = () => performance.now(),
    private readonly jitterMs = 0,
  ) {
    this.setRate(ratePerSecond);
  }

  /** A new rate applies to the next send; the window rule keeps holding across the change. */
  setRate(ratePerSecond: number) {
    const rate = Math.max(1, Math.floor(ratePerSecond));
    if (rate === this.rate) return;
    // The recent sends are kept: the window rule stays valid across the change.
    this.rate = rate;
    this.interval = WINDOW_MS / (rate * SPACING);
  }

  get ratePerSecond() {
    return this.rate;
  }

  /** Milliseconds until the next send may go out (0 = now). */
  delay(): number {
    const t = this.now();
    let wait = Math.max(this.nextAt - t, this.heldUntil - t);
    if (this.recentTakes.length >= catchUpPace(this.interval)) wait = Math.max(wait, this.recentTakes[0] + this.interval - t);
    return Math.max(0, wait, this.windowWait(t));
  }

  /**
   * The window rule: a send written at t arrives at t or later, so it may share a window only
   * with sends that can have arrived after t − 1 s. At most rate − 1 of those may exist.
   */
  private windowWait(t: number): number {
    if (this.recent.length < this.rate) return 0;
    // Sends that can no longer share a window with anything sent from now on are dropped
    // (in place: at 1,000 msg/s this runs for every send).
    const cutoff = t - WINDOW_MS;
    const recent = this.recent;
    let live = 0;
    let limit = Infinity;
    for (let i = 0; i < recent.length; i++) {
      const e = recent[i];
      if (e.at <= cutoff) continue;
      recent[live++] = e;
      if (e.at < limit) limit = e.at;
    }
    recent.length = live;
    if (live < this.rate) return 0;
    // More than `rate` after a rate cut: wait for the rate-th latest.
    if (live > this.rate) limit = recent.map((e) => e.at).sort((a, b) => b - a)[this.rate - 1];
    // Still waiting for its connection: its time is not known yet.
    return limit === Infinity ? 1 : limit + WINDOW_MS - t;
  }

  /** Records a send decided now (call only when delay() is 0); mark it with `sent()` and `answered()`. */
  take(): PacedSend {
    const t = this.now();
    this.recentTakes.push(t);
    while (this.recentTakes.length > catchUpPace(this.interval)) this.recentTakes.shift();
    const entry: PacedSend = { writtenAt: Infinity, at: Infinity };
    this.recent.push(entry);
    const catchUp = this.rested ? 0 : Math.max(MIN_CATCH_UP_MS, CATCH_UP_SLOTS * this.interval);
    this.rested = false;
    this.nextAt = Math.max(this.nextAt, t - catchUp) + this.interval;
    return entry;
  }

  /** The request reached the socket (or failed before): it cannot arrive earlier than now. */
  sent(entry: PacedSend): void {
    if (entry.writtenAt !== Infinity) return;
    const t = this.now();
    entry.writtenAt = t;
    entry.at = t + Math.max(UNANSWERED_MS, this.jitterMs);
  }

  /** Its answer arrived: the receiver had counted it by now, minus the latency every request has. */
  answered(entry: PacedSend): void {
    this.sent(entry);
    const t = this.now();
    this.observeRtt(t - entry.writtenAt);
    const credit = this.jitterMs > 0 ? 0 : this.rttCredit();
    entry.at = Math.min(entry.at, Math.max(entry.writtenAt, t - credit));
  }

  /** Nothing to send right now: missed slots are not owed (no burst when work comes back). */
  idle(): void {
    this.rested = true;
  }

  /** How much longer sends are held (0: not held). */
  heldForMs(): number {
    return Math.max(0, this.heldUntil - this.now());
  }

  /** Meta said the number is over its throughput (130429) or in maintenance (131057): hold all sends. */
  hold(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.now() + ms);
  }

  /** The round trip credited to answered sends (ms); exposed for tests and metrics. */
  rttCredit(): number {
    if (this.rttBefore === Infinity) return 0;
    return Math.max(0, Math.min(this.rttNow, this.rttBefore) / 2 - RTT_GUARD_MS);
  }

  private observeRtt(rtt: number) {
    if (!(rtt >= 0)) return;
    if (rtt < this.rttNow) this.rttNow = rtt;
    if (++this.epochCount >= RTT_EPOCH) {
      this.rttBefore = this.rttNow;
      this.rttNow = Infinity;
      this.epochCount = 0;
    }
  }
}
