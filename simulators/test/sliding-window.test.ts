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
    // Arrived at 200, accepted after the one that arrived at 300.
    expect(w.add(200)).toBe(3);
    // The one at 100 leaves first, then 200, then 300: eviction needs them sorted.
    expect(w.count(1150)).toBe(2);
    expect(w.count(1250)).toBe(1);
    expect(w.count(1350)).toBe(0);
  });
});
