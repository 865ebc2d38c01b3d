import { describe, expect, it } from 'vitest';
import { createRateLimiter, prioritised, type RateLimiter } from '../src/integrations/kommo/rate-limiter';

/**
 * The account's limiter serves 'high' calls of this process (the automation's due look-ups)
 * before waiting 'normal' ones (sync, write-back, catch-up), and arrival order within each.
 */
async function order(limiter: RateLimiter, calls: Array<['high' | 'normal', string]>): Promise<string[]> {
  const served: string[] = [];
  await Promise.all(
    calls.map(([priority, name]) =>
      limiter.acquire(undefined, { priority }).then((done) => {
        served.push(name);
        done();
      }),
    ),
  );
  return served;
}

describe('limiter priority', () => {
  it('a high call waiting goes before the normal ones that came earlier', async () => {
    // 2 per second: the first two start at once, the rest wait for the window.
    const limiter = createRateLimiter(2, 0);
    const served = await order(limiter, [
      ['normal', 'sync-1'],
      ['normal', 'sync-2'],
      ['normal', 'sync-3'],
      ['normal', 'catchup-1'],
      ['high', 'lookup-1'],
      ['high', 'lookup-2'],
    ]);
    // sync-1 is inside the limiter before anyone else asks; then the look-ups, then the rest in order.
    expect(served).toEqual(['sync-1', 'lookup-1', 'lookup-2', 'sync-2', 'sync-3', 'catchup-1']);
  }, 10_000);

  it('an aborted waiter leaves the line without holding anyone', async () => {
    const limiter = createRateLimiter(1, 0);
    const first = await limiter.acquire();
    const abort = new AbortController();
    const waiting = limiter.acquire(abort.signal);
    const behind = limiter.acquire(undefined, { priority: 'high' });
    abort.abort(new Error('parado'));
    await expect(waiting).rejects.toThrow('parado');
    first();
    (await behind)();
  }, 10_000);

  it('wraps any limiter, keeping its pause', async () => {
    let paused = 0;
    const inner: RateLimiter = { acquire: async () => () => undefined, pause: (ms) => void (paused = ms) };
    const limiter = prioritised(inner);
    (await limiter.acquire(undefined, { priority: 'high' }))();
    limiter.pause(1234);
    expect(paused).toBe(1234);
  });
});
