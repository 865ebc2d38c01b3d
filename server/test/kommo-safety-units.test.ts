import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createKommoAccountSchema } from '@masivo/contract/kommo-accounts';
import { clean } from '../src/engine/kommo-sync/contact-mapper';
import { MAX_SYNC_PAGES, walkContacts } from '../src/engine/kommo-sync/page-walker';
import { SyncStopError } from '../src/engine/kommo-sync/sync-errors';
import { createKommoClient } from '../src/integrations/kommo/client';
import { KommoError, kommoDeadline } from '../src/integrations/kommo/errors';
import { createRateLimiter, LIMITER_CAP, limiterCount, limiterFor } from '../src/integrations/kommo/rate-limiter';
import type { KommoContact } from '../src/integrations/kommo/types';
import { AppError } from '../src/lib/errors';

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('M5: clean() never leaves half a character', () => {
  it('cuts by code point at every limit the mapper uses', () => {
    for (const max of [100, 200, 300, 320, 500, 1000]) {
      const out = clean('a'.repeat(max - 1) + '😀' + 'b', max);
      expect(LONE.test(out)).toBe(false);
      expect(out).toBe('a'.repeat(max - 1) + '😀');
    }
  });

  it('replaces lone surrogates already in Kommo text', () => {
    const out = clean('x\ud83dy\ude00z');
    expect(LONE.test(out)).toBe(false);
    expect(JSON.parse(JSON.stringify(out))).toBe('x\ufffdy\ufffdz');
  });
});

/** An in-memory Kommo list ("updated_at >= from, oldest first") that callers can edit mid-walk. */
function fakeKommo(n: number) {
  let clock = 1000;
  const list: KommoContact[] = Array.from({ length: n }, (_, i) => ({ id: i + 1, updated_at: 100 + i }));
  return {
    edit(id: number) {
      const c = list.find((x) => x.id === id)!;
      c.updated_at = ++clock;
    },
    page(from: number, page: number, size: number): KommoContact[] | null {
      const sorted = list.filter((c) => c.updated_at! >= from).sort((a, b) => a.updated_at! - b.updated_at! || a.id - b.id);
      const slice = sorted.slice((page - 1) * size, page * size).map((c) => ({ ...c }));
      return slice.length ? slice : null;
    },
  };
}

describe('M4: the walker', () => {
  it('loses no contact when contacts already read are edited during the walk (shift probe)', async () => {
    const kommo = fakeKommo(100);
    const seen = new Set<number>();
    let calls = 0;
    const pages = walkContacts({
      start: { from: 0, startPage: 1 },
      pageSize: 10,
      windowPages: 3, // ignored now; the old walker fetched windows of pages at once
      signal: new AbortController().signal,
      fetchPage: async ({ from, page }) => {
        const out = kommo.page(from, page, 10);
        // After each answer, someone edits a contact that was already read: it moves to the end.
        if (out && ++calls < 30) kommo.edit(out[0].id);
        return out;
      },
    } as Parameters<typeof walkContacts>[0]);
    for await (const p of pages) for (const c of p.contacts) seen.add(Number(c.id));
    expect(seen.size).toBe(100);
  });

  it('ends only on a 204: a short page is confirmed by asking for the next one', async () => {
    const asked: number[] = [];
    const pages = walkContacts({
      start: { from: 0, startPage: 1 },
      pageSize: 10,
      signal: new AbortController().signal,
      fetchPage: async ({ page }) => {
        asked.push(page);
        if (page === 1) return Array.from({ length: 10 }, (_, i) => ({ id: i + 1, updated_at: 5 }));
        if (page === 2) return [{ id: 11, updated_at: 5 }]; // short
        if (page === 3) return [{ id: 12, updated_at: 5 }]; // but there is more
        return null;
      },
    } as Parameters<typeof walkContacts>[0]);
    const ids: number[] = [];
    for await (const p of pages) ids.push(...p.contacts.map((c) => Number(c.id)));
    // The short page 2 did not end the walk: page 3 was asked for and read, and page 4 (204) ended it.
    expect(new Set(ids).size).toBe(12);
    expect(asked.slice(-3)).toEqual([2, 3, 4]);
  });

  it('stops a list that never ends at the page cap', async () => {
    expect(MAX_SYNC_PAGES).toBeGreaterThan(0);
    let ts = 0;
    const pages = walkContacts({
      start: { from: 0, startPage: 1 },
      pageSize: 2,
      maxPages: 50,
      signal: new AbortController().signal,
      fetchPage: async () => [{ id: ++ts, updated_at: ts }, { id: ++ts, updated_at: ts }],
    } as Parameters<typeof walkContacts>[0]);
    let n = 0;
    await expect(
      (async () => {
        for await (const _ of pages) n++;
      })(),
    ).rejects.toBeInstanceOf(SyncStopError);
    expect(n).toBeLessThanOrEqual(50);
  });
});

let server: Server | undefined;
afterEach(() => {
  server?.close();
  server = undefined;
  vi.restoreAllMocks();
});

async function fakeServer(handler: (url: string) => { status: number; body: string }): Promise<string> {
  server = createServer((req, res) => {
    const { status, body } = handler(req.url ?? '');
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/{subdomain}`;
}

describe('Kommo client limits', () => {
  it('M4: a 200 without _embedded is an error after retries, never an empty page', async () => {
    let calls = 0;
    const base = await fakeServer(() => (calls++, { status: 200, body: '{}' }));
    const client = createKommoClient({ baseUrlTemplate: base, rps: 1000, retries: 2, backoffMs: 1 });
    await expect(client.contactsPage({ subdomain: 'uno', accessToken: 't' }, { page: 3 })).rejects.toBeInstanceOf(KommoError);
    expect(calls).toBe(3);
  });

  it('M4: an empty 200 body is an error too; only a 204 ends the list', async () => {
    const base = await fakeServer((url) => (url.includes('page=2') ? { status: 204, body: '' } : { status: 200, body: '' }));
    const client = createKommoClient({ baseUrlTemplate: base, rps: 1000, retries: 1, backoffMs: 1 });
    await expect(client.contactsPage({ subdomain: 'dos', accessToken: 't' }, { page: 1 })).rejects.toBeInstanceOf(KommoError);
    await expect(client.contactsPage({ subdomain: 'dos', accessToken: 't' }, { page: 2 })).resolves.toBeNull();
  });

  it('M11: 429s are capped in number', async () => {
    let calls = 0;
    const base = await fakeServer(() => (calls++, { status: 429, body: JSON.stringify({ retry_after: 0.001 }) }));
    const client = createKommoClient({ baseUrlTemplate: base, rps: 1000, max429s: 4 });
    const err = await client.contactsPage({ subdomain: 'tres', accessToken: 't' }, { page: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KommoError);
    expect((err as KommoError).message).toMatch(/429/);
    expect(calls).toBe(5);
  });

  it('M11: 429s are capped in total wait', async () => {
    let calls = 0;
    const base = await fakeServer(() => (calls++, { status: 429, body: JSON.stringify({ retry_after: 0.05 }) }));
    const client = createKommoClient({ baseUrlTemplate: base, rps: 1000, max429s: 1000, max429WaitMs: 120 });
    await expect(client.contactsPage({ subdomain: 'cuatro', accessToken: 't' }, { page: 1 })).rejects.toBeInstanceOf(KommoError);
    expect(calls).toBeLessThanOrEqual(3);
  });

  it('L12: an oversized body is not read whole and counts as a bad answer', async () => {
    const big = JSON.stringify({ _embedded: { contacts: [{ id: 1, name: 'x'.repeat(50_000) }] } });
    const base = await fakeServer(() => ({ status: 200, body: big }));
    const client = createKommoClient({ baseUrlTemplate: base, rps: 1000, retries: 0, maxBodyBytes: 10_000 });
    await expect(client.contactsPage({ subdomain: 'cinco', accessToken: 't' }, { page: 1 })).rejects.toThrow(/respuesta incompleta o inválida/);
  });

  it('L12: the limiter ignores wall-clock steps', async () => {
    const limiter = createRateLimiter(1);
    (await limiter.acquire())();
    const real = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(real - 3600_000); // the clock is set back an hour
    const started = performance.now();
    (await limiter.acquire())();
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('M7: the per-subdomain limiter map is bounded', () => {
    for (let i = 0; i < LIMITER_CAP + 500; i++) limiterFor(`test|r${i}`, 7);
    expect(limiterCount()).toBeLessThanOrEqual(LIMITER_CAP);
  });

  it('L2: our own deadline becomes a Spanish 504, not a 500', () => {
    const err = kommoDeadline(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).statusCode).toBe(504);
    expect((err as AppError).message).toMatch(/Kommo tardó demasiado/);
  });
});

describe('L1: phone_field_id fits the integer column', () => {
  it('refuses 2^31 with a Spanish message', () => {
    const r = createKommoAccountSchema.safeParse({ subdomain: 'x', access_token: 't', phone_field_id: 2147483648 });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0].message).toBe('El campo de teléfono es inválido');
    expect(createKommoAccountSchema.safeParse({ subdomain: 'x', access_token: 't', phone_field_id: 2147483647 }).success).toBe(true);
  });
});
