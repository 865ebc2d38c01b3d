import { describe, expect, it } from 'vitest';
import { Pacer } from '../src/engine/campaigns/pacer';

/** Largest number of times within any window of `windowMs` (half-open, as the simulator counts). */
function maxInWindow(times: number[], windowMs = 1000): number {
  let max = 0;
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    while (times[i] - times[j] >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

/** Drives a pacer with a fake clock: the loop wakes when asked (plus timer lateness and random stalls). */
function drive(rate: number, seconds: number, opts: { stallMs?: number; writeAt?: (decidedAt: number) => number } = {}) {
  let now = 0;
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const pacer = new Pacer(rate, () => now);
  const writes: number[] = [];
  const pending: Array<{ at: number; entry: ReturnType<Pacer['take']> }> = [];
  let nextStallAt = 700;
  while (now < seconds * 1000) {
    // Requests reach the socket later when a connection is not ready.
    for (let i = pending.length - 1; i >= 0; i--) {
      if (pending[i].at <= now) {
        pacer.sent(pending[i].entry);
        writes.push(now);
        pending.splice(i, 1);
      }
    }
    const wait = pacer.delay();
    if (wait > 0) {
      // Timers fire after at least a millisecond, often a little late.
      now += Math.max(1, wait) + random() * 0.3;
    } else {
      const entry = pacer.take();
      pending.push({ at: opts.writeAt?.(now) ?? now, entry });
    }
    // About once a second the event loop is busy elsewhere (a database write, GC).
    if (opts.stallMs && now >= nextStallAt) {
      now += opts.stallMs * random();
      nextStallAt = now + 500 + random() * 1000;
    }
  }
  writes.sort((a, b) => a - b);
  return { writes, achieved: writes.length / seconds };
}

describe('the pacer', () => {
  it('holds 80 and 1,000 msg/s to within 2 % on a quiet loop', () => {
    for (const rate of [80, 1000]) {
      const { writes, achieved } = drive(rate, 20);
      expect(maxInWindow(writes)).toBeLessThanOrEqual(rate);
      expect(achieved).toBeGreaterThan(rate * 0.98);
    }
  });

  it('never lets a window overfill when the loop stalls and catches up', () => {
    for (const rate of [25, 80, 1000]) {
      const { writes, achieved } = drive(rate, 20, { stallMs: 150 });
      expect(maxInWindow(writes)).toBeLessThanOrEqual(rate);
      expect(achieved).toBeGreaterThan(rate * 0.9);
    }
  });

  it('counts a send when it reaches the socket, not when it was decided', () => {
    // Twice a second no connection is free for 300 ms: the requests decided meanwhile all
    // reach the socket together when one frees up.
    const writeAt = (t: number) => {
      const phase = t % 500;
      return phase >= 100 && phase < 400 ? t - phase + 400 : t;
    };
    const { writes } = drive(80, 15, { writeAt });
    expect(maxInWindow(writes)).toBeLessThanOrEqual(80);
  });

  it('owes nothing after an idle spell and holds sends on request', () => {
    let now = 0;
    const pacer = new Pacer(10, () => now);
    pacer.sent(pacer.take());
    now = 5_000;
    pacer.idle();
    expect(pacer.delay()).toBe(0);
    pacer.sent(pacer.take());
    // The next slot is a full interval later, not a burst of the 49 "missed" ones.
    expect(pacer.delay()).toBeGreaterThan(90);
    now += 200;
    pacer.hold(1_000);
    expect(pacer.delay()).toBeGreaterThan(900);
  });
});
