import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKommoSim, type KommoSim } from '@masivo/simulators/kommo';
import { createKommoClient, kommoBaseUrl } from '../src/integrations/kommo/client';
import { KommoError } from '../src/integrations/kommo/errors';
import { createRateLimiter } from '../src/integrations/kommo/rate-limiter';

let sim: KommoSim;
const creds = (subdomain: string) => ({ subdomain, accessToken: `tok-${subdomain}` });

beforeAll(async () => {
  sim = await startKommoSim({ rps: 7, accounts: [] });
  for (const s of ['ritmo', 'limite', 'vacia', 'campos']) sim.addAccount({ subdomain: s, token: `tok-${s}`, contacts: s === 'vacia' ? 0 : 3000 });
});
afterAll(() => sim.close());

describe('Kommo client', () => {
  it('refuses a subdomain that is not a plain Kommo subdomain before any request', () => {
    for (const bad of ['evil.com/x', 'a@b', '../x', '-abc', 'UPPER', 'a b', 'x.y', '', 'a'.repeat(64)]) {
      expect(() => kommoBaseUrl('https://{subdomain}.kommo.com', bad)).toThrow(KommoError);
    }
    expect(kommoBaseUrl('https://{subdomain}.kommo.com', 'mi-empresa1')).toBe('https://mi-empresa1.kommo.com');
  });

  it('holds KOMMO_RPS in every one-second window: no 429 however many calls wait', async () => {
    sim.reset();
    const client = createKommoClient({ baseUrlTemplate: sim.baseUrlTemplate, rps: 7 });
    const started = Date.now();
    const pages = await Promise.all(Array.from({ length: 12 }, (_, i) => client.contactsPage(creds('ritmo'), { page: i + 1 })));
    expect(pages.every((p) => p?.length === 250)).toBe(true);
    const stats = sim.stats();
    expect(stats.count429).toBe(0);
    expect(stats.perSecondMax).toBeLessThanOrEqual(7);
    // 12 requests at 7/s need just over one second, not much more.
    expect(Date.now() - started).toBeGreaterThan(1000);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('waits retry_after on a 429 and goes on, without being blocked', async () => {
    sim.reset();
    sim.configure({ rps: 2 });
    try {
      const client = createKommoClient({ baseUrlTemplate: sim.baseUrlTemplate, rps: 7 });
      for (let page = 1; page <= 4; page++) expect(await client.contactsPage(creds('limite'), { page })).toHaveLength(250);
      const stats = sim.stats();
      expect(stats.count429).toBeGreaterThan(0);
      expect(stats.count403).toBe(0);
      expect(client.stats().count429).toBe(stats.count429);
    } finally {
      sim.configure({ rps: 7 });
    }
  });

  it('treats 204 as the end of the list', async () => {
    const client = createKommoClient({ baseUrlTemplate: sim.baseUrlTemplate, rps: 7 });
    expect(await client.contactsPage(creds('vacia'), { page: 1 })).toBeNull();
    expect(await client.contactsPage(creds('ritmo'), { page: 13 })).toBeNull();
  });

  it('lists custom fields and reads the account country', async () => {
    const client = createKommoClient({ baseUrlTemplate: sim.baseUrlTemplate, rps: 7 });
    const fields = await client.customFields(creds('campos'));
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(['Teléfono', 'Email', 'Ciudad', 'Plan', 'Origen']));
    expect(fields.find((f) => f.code === 'PHONE')?.id).toBe(sim.fields('campos').phoneFieldId);
    expect((await client.account(creds('campos'))).country).toBe('AR');
  });

  it('names each failure in Spanish', async () => {
    const client = createKommoClient({ baseUrlTemplate: sim.baseUrlTemplate, rps: 7, retries: 1, backoffMs: 5, timeoutMs: 300 });
    await expect(client.account({ subdomain: 'campos', accessToken: 'mal' })).rejects.toMatchObject({ kind: 'unauthorized' });
    await expect(client.account({ subdomain: 'noexiste', accessToken: 'x' })).rejects.toThrow(/Kommo/);
    sim.injectFault({ kind: '5xx', count: 5, subdomain: 'campos', status: 503 });
    await expect(client.account(creds('campos'))).rejects.toMatchObject({ kind: 'unavailable', message: 'Kommo no responde (HTTP 503). Intenta de nuevo más tarde.' });
    sim.reset();
    sim.injectFault({ kind: 'timeout', count: 3, subdomain: 'campos' });
    await expect(client.account(creds('campos'))).rejects.toMatchObject({ kind: 'unavailable' });
    sim.reset();
  });

  it('rate limiter: a fractional rate spaces single requests', async () => {
    const limiter = createRateLimiter(4, 0);
    const release: Array<() => void> = [];
    const times: number[] = [];
    for (let i = 0; i < 6; i++) {
      release.push(await limiter.acquire());
      times.push(Date.now());
      release[i]();
    }
    // the fifth start waits for the first to leave the window
    expect(times[4] - times[0]).toBeGreaterThanOrEqual(999);
  });
});
