// Kommo's rate limit per account: at most `rps` requests in any 1-second window, 429 beyond it, and a
// 403 block for every request after repeated 429s. Times come from a monotonic clock.
import { SlidingWindow } from '../shared/sliding-window';

export interface LimitConfig {
  rps: number;
  blockAfter429s: number;
  blockSeconds: number;
}

/** 429s closer together than this count toward a block. */
const STRIKE_WINDOW_MS = 10_000;

export type GateResult = 'ok' | 'rate_limited' | 'blocked';

export class AccountGate {
  /** Requests let through; answered 429s do not use up the window. */
  private accepted = new SlidingWindow(1000);
  /** Every request that arrived, for the pacing statistic. */
  readonly arrivals = new SlidingWindow(1000);
  private strikes: number[] = [];
  private blockedUntil = 0;

  check(now: number, cfg: LimitConfig): GateResult {
    this.arrivals.add(now);
    if (now < this.blockedUntil) return 'blocked';
    if (this.accepted.count(now) >= cfg.rps) {
      this.strikes = this.strikes.filter((t) => now - t < STRIKE_WINDOW_MS);
      this.strikes.push(now);
      if (this.strikes.length >= cfg.blockAfter429s) {
        this.blockedUntil = now + cfg.blockSeconds * 1000;
        this.strikes = [];
      }
      return 'rate_limited';
    }
    this.accepted.add(now);
    return 'ok';
  }
}
