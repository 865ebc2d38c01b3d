import { describe, expect, it } from 'vitest';
import { LEASE_WINDOW_MARGIN_MS } from '../src/engine/campaigns/leases';
import { resolveEngineOptions } from '../src/engine/campaigns/options';
import { Pacer, UNANSWERED_MS, type PacedSend } from '../src/engine/campaigns/pacer';

/**
 * The pacer against a fake clock and a modelled receiver: each request reaches the socket
 * (maybe after waiting for a connection), travels with a jitter, is COUNTED ON ARRIVAL in a
 * sliding one-second window (as Meta counts, and as the simulator does), and its answer
 * comes back a little later. No real time passes: these are properties, not speed figures
 * (speed is measured by bench/pacing.bench.ts).
 */

/** Largest number of arrivals inside any half-open window [t, t + 1000), as the simulator counts. */
function maxInWindow(sorted: number[], windowMs = 1000): number {
  let max = 0;
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (sorted[i] - sorted[j] >= windowMs) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

interface Sent {
  decidedAt: number;
  writtenAt: number;
  arrivedAt: number;
}

interface DriveOptions {
  rate: number;
  sends: number;
  seed?: number;
  /** One-way latency to the receiver (ms); default: 5 ms + exponential tail of mean 15 ms, capped at 80 ms. */
  latency?: (random: () => number) => number;
  /** Time from arrival to the answer being read here (ms). */
  answerLag?: (random: () => number) => number;
  /** When a request decided at t reaches the socket (a connection may not be free). */
  writeAt?: (decidedAt: number) => number;
  /** About once a second the event loop is busy for up to this long. */
  stallMs?: number;
  /** Called before each decision; may change the rate. */
  beforeSend?: (pacer: Pacer, index: number, now: number) => void;
}

const longTail = (random: () => number) => Math.min(80, 5 - 15 * Math.log(1 - random()));

function drive(o: DriveOptions) {
  let now = 0;
  let seed = o.seed ?? 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const latency = o.latency ?? longTail;
  const answerLag = o.answerLag ?? ((r) => 0.3 - 0.7 * Math.log(1 - r()));
  const pacer = new Pacer(o.rate, () => now);
  const events: Array<{ t: number; apply: () => void }> = [];
  const sent: Sent[] = [];
  let nextStallAt = 700;
  while (sent.length < o.sends) {
    events.sort((a, b) => a.t - b.t);
    while (events.length && events[0].t <= now) events.shift()!.apply();
    o.beforeSend?.(pacer, sent.length, now);
    const wait = pacer.delay();
    if (wait > 0) {
      // Timers fire on whole milliseconds, a little late; an answer wakes the loop too.
      const timer = now + Math.ceil(wait) + random() * 0.5;
      now = Math.min(timer, Math.max(now + 0.05, events[0]?.t ?? Infinity));
    } else {
      const entry: PacedSend = pacer.take();
      const writtenAt = Math.max(now, o.writeAt?.(now) ?? now) + random() * 0.2;
      const arrivedAt = writtenAt + latency(random);
      sent.push({ decidedAt: now, writtenAt, arrivedAt });
      events.push({ t: writtenAt, apply: () => pacer.sent(entry) });
      events.push({ t: arrivedAt + answerLag(random), apply: () => pacer.answered(entry) });
    }
    if (o.stallMs && now >= nextStallAt) {
      now += o.stallMs * random();
      nextStallAt = now + 500 + random() * 1000;
    }
  }
  const arrivals = sent.map((s) => s.arrivedAt).sort((a, b) => a - b);
  const writes = sent.map((s) => s.writtenAt).sort((a, b) => a - b);
  const achieved = (writes.length - 1) / ((writes.at(-1)! - writes[0]) / 1000);
  return { sent, arrivals, achieved, pacer };
}

describe('the pacer, judged at the receiver (sliding one-second window on arrival)', () => {
  it('never overfills a window under long-tailed jitter, at 20, 80 and 1,000 msg/s', () => {
    for (const rate of [20, 80, 1000]) {
      for (const seed of [7, 4242]) {
        const { arrivals, achieved } = drive({ rate, sends: rate * 40, seed });
        expect(maxInWindow(arrivals)).toBeLessThanOrEqual(rate);
        // Not a timing: the model's pace, so a pacer that is safe only by being slow fails.
        expect(achieved).toBeGreaterThan(rate * 0.97);
      }
    }
  });

  it('keeps a margin against the jitter: evenly spaced sends would overfill the receiver', () => {
    // The same jitter, sends simply spaced at 1/rate: windows at the receiver overfill.
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const arrivals = Array.from({ length: 80 * 40 }, (_, i) => i * 12.5 + longTail(random)).sort((a, b) => a - b);
    expect(maxInWindow(arrivals)).toBeGreaterThan(80);
  });

  it('never overfills when the loop stalls and catches up', () => {
    for (const rate of [25, 80, 1000]) {
      const { arrivals, achieved } = drive({ rate, sends: rate * 20, stallMs: 150 });
      expect(maxInWindow(arrivals)).toBeLessThanOrEqual(rate);
      expect(achieved).toBeGreaterThan(rate * 0.9);
    }
  });

  it('counts a send from when it reaches the socket, not when it was decided', () => {
    // Twice a second no connection is free for 300 ms: the requests decided meanwhile all
    // reach the socket together when one frees up.
    const writeAt = (t: number) => {
      const phase = t % 500;
      return phase >= 100 && phase < 400 ? t - phase + 400 : t;
    };
    const { arrivals } = drive({ rate: 80, sends: 80 * 15, writeAt });
    expect(maxInWindow(arrivals)).toBeLessThanOrEqual(80);
  });

  it('without answers, takes each send as counted UNANSWERED_MS after it was written', () => {
    // Answers take 3 s (far beyond any jitter): the rule falls back on the unanswered bound.
    const { arrivals, achieved } = drive({ rate: 80, sends: 80 * 30, answerLag: () => 3_000, latency: () => UNANSWERED_MS - 1 });
    expect(maxInWindow(arrivals)).toBeLessThanOrEqual(80);
    // Only the first window goes at the full rate.
    expect(achieved).toBeLessThan(80 * (1000 / (1000 + UNANSWERED_MS)) * 1.05);
  });

  it('credits only a latency floor seen over many answers, never a single round trip', () => {
    let now = 0;
    const pacer = new Pacer(80, () => now);
    const one = pacer.take();
    pacer.sent(one);
    now = 40;
    pacer.answered(one);
    // One answer 40 ms later proves nothing about the next request's latency.
    expect(pacer.rttCredit()).toBe(0);
    expect(one.at).toBe(40);
    const { pacer: warmed, sent } = drive({ rate: 80, sends: 800 });
    const shortest = Math.min(...sent.map((s) => s.arrivedAt - s.writtenAt));
    expect(warmed.rttCredit()).toBeGreaterThan(0);
    // Below every one-way latency seen, so a credited send still counts no earlier than it arrived.
    expect(warmed.rttCredit()).toBeLessThan(shortest);
  });

  it('a new rate applies to the next send; every window holding a send after the change respects the new rate', () => {
    for (const [from, to] of [
      [80, 1000],
      [1000, 80],
      [80, 20],
    ]) {
      let changedAt = -1;
      const { sent, arrivals } = drive({
        rate: from,
        sends: from * 5 + to * 5,
        beforeSend: (pacer, i) => {
          if (i === from * 5 && pacer.ratePerSecond === from) {
            pacer.setRate(to);
            changedAt = i;
          }
        },
      });
      expect(changedAt).toBe(from * 5);
      const after = new Set(sent.slice(changedAt).map((s) => s.arrivedAt));
      // Windows starting at each arrival are the fullest ones; check those holding a new send.
      let j = 0;
      for (let i = 0; i < arrivals.length; i++) {
        while (j < arrivals.length && arrivals[j] - arrivals[i] < 1000) j++;
        const window = arrivals.slice(i, j);
        if (window.some((a) => after.has(a))) expect(window.length).toBeLessThanOrEqual(to);
        else expect(window.length).toBeLessThanOrEqual(from);
      }
    }
  });

  it('owes nothing after an idle spell and holds sends on request', () => {
    let now = 0;
    const pacer = new Pacer(10, () => now);
    const first = pacer.take();
    pacer.sent(first);
    pacer.answered(first);
    now = 5_000;
    pacer.idle();
    expect(pacer.delay()).toBe(0);
    pacer.answered(pacer.take());
    // The next slot is a full interval later, not a burst of the 49 "missed" ones.
    expect(pacer.delay()).toBeGreaterThan(90);
    now += 200;
    pacer.hold(1_000);
    expect(pacer.delay()).toBeGreaterThan(900);
    expect(pacer.heldForMs()).toBe(1_000);
  });

  it('a number taken over from a dead or stalled holder starts after the old sends can no longer count', () => {
    // The old holder stops sending LEASE_WINDOW_MARGIN_MS before its lease can expire; a send
    // it wrote last counts at most UNANSWERED_MS later, and then for one window.
    expect(LEASE_WINDOW_MARGIN_MS).toBeGreaterThanOrEqual(1000 + UNANSWERED_MS);
    for (const partial of [{}, { leaseTtlMs: 2_500, leaseRenewMs: 500 }, { leaseTtlMs: 1_000, leaseRenewMs: 1_000 }]) {
      const o = resolveEngineOptions(partial);
      // Room left to send between renewals after the margin.
      expect(o.leaseTtlMs - LEASE_WINDOW_MARGIN_MS).toBeGreaterThan(o.leaseRenewMs * 2);
    }
  });
});
