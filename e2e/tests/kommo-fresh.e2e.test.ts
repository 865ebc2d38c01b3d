import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, startStack, type Stack } from '../src/stack';

/**
 * Contacts kept fresh between full syncs, on the real console and the Kommo simulator: a contact
 * created, edited and deleted in Kommo reaches the console's filters within 5 s through Kommo's
 * webhooks, and within 70 s through the once-a-minute catch-up when Kommo delivers no webhooks.
 */
const SUB = 'fresco';
let stack: Stack;
let api: ReturnType<typeof apiAs>;
let accountId: number;

/** Polls until `check` holds; returns how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return Date.now() - started;
}

/** What the console's filters find for a text search on the account. */
async function found(query: string): Promise<Array<{ kommo_id: number; name: string; tags_array: string[] }>> {
  const page = await api.get(`/contacts/${accountId}/filtered?searchQuery=${encodeURIComponent(query)}&limit=50`);
  return page.contacts;
}

beforeAll(async () => {
  stack = await startStack({ kommo: { accounts: [{ subdomain: SUB, token: 'tok-fresco', contacts: 30, seed: 9 }], rps: 7 }, publicUrlIsServer: true });
  const res = await fetch(`${stack.baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: 'Rosa', email: `fresco${Date.now()}@example.com`, password: 'secreto123' }),
  });
  api = apiAs(stack.baseUrl, ((await res.json()) as { token: string }).token);
  const account = await api.post('/kommo/accounts', { subdomain: SUB, access_token: 'tok-fresco', phone_field_id: stack.kommo.fields(SUB).phoneFieldId });
  accountId = account.id;
  await api.post('/kommo/sync-contacts', { account_id: accountId });
  await within(60_000, async () => (await api.get(`/kommo/accounts/${accountId}/sync-status`)).sync_status === 'synced');
  // The console subscribed to the account's contact events when it was connected.
  await within(10_000, async () => stack.kommo.webhooks(SUB).length === 1);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('contacts kept fresh between syncs', () => {
  it('by webhook: created, edited and deleted contacts show in the filters within 5 s', async () => {
    const [id] = stack.kommo.addContacts(SUB, 1);
    stack.kommo.updateContact(SUB, id, { name: 'Zulema Webhook', phone: '+5491155501234', tags: ['recien-llegada'] });
    const created = await within(5_000, async () => (await found('Zulema Webhook')).length === 1);

    stack.kommo.updateContact(SUB, id, { tags: ['cliente-vip'] });
    const edited = await within(5_000, async () => (await found('Zulema Webhook'))[0]?.tags_array.includes('cliente-vip') === true);

    stack.kommo.deleteContact(SUB, id);
    const deleted = await within(5_000, async () => (await found('Zulema Webhook')).length === 0);
    console.log(`webhook: created ${created} ms, edited ${edited} ms, deleted ${deleted} ms`);
    const account = (await api.get('/kommo/accounts')).find((a: { id: number }) => a.id === accountId);
    expect(account.freshness.source).toBe('webhooks');
  }, 30_000);

  it('by the catch-up with webhooks off: the same within 70 s', async () => {
    stack.kommo.configureWebhooks({ enabled: false });
    const [id] = stack.kommo.addContacts(SUB, 1);
    stack.kommo.updateContact(SUB, id, { name: 'Yanina Consulta', phone: '+5491155509876', tags: ['sin-webhook'] });
    const created = await within(70_000, async () => (await found('Yanina Consulta')).length === 1).catch(async (err) => {
      console.log(JSON.stringify((await api.get('/kommo/accounts'))[0].freshness), JSON.stringify(stack.kommo.stats()));
      throw err;
    });
    expect((await found('Yanina Consulta'))[0].tags_array).toContain('sin-webhook');

    stack.kommo.deleteContact(SUB, id);
    const deleted = await within(70_000, async () => (await found('Yanina Consulta')).length === 0);
    console.log(`catch-up: created ${created} ms, deleted ${deleted} ms`);
  }, 160_000);
});
