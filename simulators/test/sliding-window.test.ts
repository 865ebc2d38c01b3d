import { describe, expect, it } from 'vitest';
import { SlidingWindow } from '../src/shared/sliding-window';

describe('the simulator sliding window', () => {
  it('counts the events of the last window and forgets older ones', () => {
    const w = new SlidingWindow(1000);
    expect(w.add(0)).toBe(1);
    expect(w.add(500)).toBe(2);
    expect(w.count(999)).toBe(2);
    expect(w.count(1000)).toBe(1);
    expect(w.count(1500)).toBe(0);
    expect(w.max).toBe(2);
  });

  it('keeps an event timed a little out of order (at its arrival) in time order', () => {
    const w = new SlidingWindow(1000);
    w.add(100);
    w.add(300);
    // Arrived at 200, accepted after the one that arrived at 300: its window, (−800, 200],
    // holds 100 and itself; the window from 100 holds all three.
    expect(w.add(200)).toBe(2);
    expect(w.max).toBe(3);
    // The one at 100 leaves first, then 200, then 300: eviction needs them sorted.
    expect(w.count(1150)).toBe(2);
    expect(w.count(1250)).toBe(1);
    expect(w.count(1350)).toBe(0);
  });

  it('counts, for a request timed before a later one, only the second before its own arrival', () => {
    // At 3 a second: sends arrived at 0, 500 and 1,050; the one at 1,050 was accepted first.
    const w = new SlidingWindow(1000);
    w.add(0);
    w.add(500);
    w.add(1050);
    // Another arrived at 1,000 (its body read later). The receiver, counting at 1,000, sees
    // 500 and 1,000 in (0, 1,000], under the rate: not a 130429. Counting the one that
    // arrived at 1,050 too would refuse it.
    expect(w.count(1000)).toBe(1);
    expect(w.add(1000)).toBe(2);
    // Every window still holds at most 3: [500, 1,500) has 500, 1,000 and 1,050.
    expect(w.max).toBe(3);
    expect(w.count(1499)).toBe(3);
  });

  it('keeps the second a late event needs, after a later one moved the window on', () => {
    const w = new SlidingWindow(1000);
    w.add(100);
    w.add(1500);
    // Timed at 1,050 but accepted after the one at 1,500: the one at 100 is in its window.
    expect(w.count(1050)).toBe(1);
  });
});
