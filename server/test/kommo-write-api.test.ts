import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKommoClient } from '../src/integrations/kommo/client';
import { KommoError } from '../src/integrations/kommo/errors';
import { createKommoWriteApi, isOpenLead } from '../src/integrations/kommo/write-api';
import { CONTACTS_WITH_LEADS, LEADS, NOTES_ADDED, NOTES_LIST, PIPELINES, VALIDATION_ERRORS } from './fixtures/kommo-writeback';

/**
 * The write-back's Kommo calls against a server answering in Kommo's documented shapes
 * (fixtures/kommo-writeback.ts): what is sent (method, path, query, body) and what is read back.
 */

interface Seen {
  method: string;
  url: string;
  body: unknown;
}
let server: Server;
let base: string;
const seen: Seen[] = [];
let answer: (s: Seen) => { status: number; body?: unknown } = () => ({ status: 204 });

beforeAll(async () => {
  server = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, body: data ? JSON.parse(data) : undefined };
      seen.push(s);
      const a = answer(s);
      res.writeHead(a.status, { 'content-type': 'application/hal+json' });
      res.end(a.body === undefined ? '' : JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/{subdomain}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const creds = { subdomain: 'fixture', accessToken: 'tok' };
const writeApi = () => createKommoWriteApi(createKommoClient({ baseUrlTemplate: base, rps: 1000, retries: 1, backoffMs: 5, timeoutMs: 2000 }));

describe('Kommo write calls in documented shapes', () => {
  it('adds common notes with request_id and reads the created ids', async () => {
    seen.length = 0;
    answer = () => ({ status: 200, body: NOTES_ADDED });
    const created = await writeApi().addContactNotes(creds, [
      { entityId: 1001, text: 'Campaña Promo: entregado', requestId: '7' },
      { entityId: 1002, text: 'Campaña Promo: leído', requestId: '8' },
    ]);
    expect(created).toEqual([
      { id: 42_000_001, entityId: 1001, requestId: '7' },
      { id: 42_000_002, entityId: 1002, requestId: '8' },
    ]);
    expect(seen[0]).toEqual({
      method: 'POST',
      url: '/fixture/api/v4/contacts/notes',
      body: [
        { entity_id: 1001, note_type: 'common', params: { text: 'Campaña Promo: entregado' }, request_id: '7' },
        { entity_id: 1002, note_type: 'common', params: { text: 'Campaña Promo: leído' }, request_id: '8' },
      ],
    });
  });

  it('never repeats a notes request after a 5xx: it fails as unsure', async () => {
    seen.length = 0;
    answer = () => ({ status: 502, body: { title: 'Bad Gateway' } });
    const err = await writeApi().addContactNotes(creds, [{ entityId: 1, text: 'x', requestId: '1' }]).catch((e) => e);
    expect(err).toBeInstanceOf(KommoError);
    expect(err.unsure).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it('reads a 400 with validation-errors as per-entry refusals', async () => {
    answer = () => ({ status: 400, body: VALIDATION_ERRORS });
    const err = await writeApi().addContactNotes(creds, [{ entityId: 1, text: 'x', requestId: '8' }]).catch((e) => e);
    expect(err).toBeInstanceOf(KommoError);
    expect(err.refused).toEqual([{ requestId: '8', detail: 'Entity not found' }]);
    expect(err.unsure).toBe(false);
  });

  it('lists notes by contact, type and time', async () => {
    seen.length = 0;
    answer = () => ({ status: 200, body: NOTES_LIST });
    const notes = await writeApi().contactNotes(creds, [1001, 1002], 1_763_999_000);
    expect(notes).toEqual([{ id: 42_000_001, entityId: 1001, text: 'Campaña Promo: entregado', createdAt: 1_764_000_000 }]);
    const q = new URL(seen[0].url, 'http://x').searchParams;
    expect(q.getAll('filter[entity_id][]')).toEqual(['1001', '1002']);
    expect(q.get('filter[note_type]')).toBe('common');
    expect(q.get('filter[updated_at][from]')).toBe('1763999000');
  });

  it('adds tags with tags_to_add, keeping the contact’s other tags', async () => {
    seen.length = 0;
    answer = () => ({ status: 200, body: { _embedded: { contacts: [{ id: 1001, updated_at: 1 }] } } });
    await writeApi().addContactTags(creds, [{ contactId: 1001, tags: ['Respondió WhatsApp'] }]);
    expect(seen[0]).toEqual({ method: 'PATCH', url: '/fixture/api/v4/contacts', body: [{ id: 1001, tags_to_add: [{ name: 'Respondió WhatsApp' }] }] });
  });

  it('reads a contact’s leads (with=leads), their stages, and moves the open one', async () => {
    seen.length = 0;
    answer = (s) => (s.url.startsWith('/fixture/api/v4/contacts') ? { status: 200, body: CONTACTS_WITH_LEADS } : s.method === 'GET' ? { status: 200, body: LEADS } : { status: 200, body: { _embedded: { leads: [{ id: 5002 }] } } });
    const api = writeApi();
    const leadsOf = await api.contactLeads(creds, [1001, 1002]);
    expect([...leadsOf]).toEqual([[1001, [5001, 5002]], [1002, []]]);
    expect(new URL(seen[0].url, 'http://x').searchParams.get('with')).toBe('leads');
    const leads = await api.leadsByIds(creds, [5001, 5002]);
    expect(leads.filter(isOpenLead).map((l) => l.id)).toEqual([5002]);
    await api.moveLeads(creds, [{ id: 5002, pipelineId: 700, statusId: 8_001 }]);
    expect(seen.at(-1)).toEqual({ method: 'PATCH', url: '/fixture/api/v4/leads', body: [{ id: 5002, pipeline_id: 700, status_id: 8_001 }] });
  });

  it('reads pipelines with their stages in Kommo’s order', async () => {
    answer = () => ({ status: 200, body: PIPELINES });
    const [main, archived] = await writeApi().pipelines(creds);
    expect(main).toMatchObject({ id: 700, name: 'Embudo', isMain: true, isArchive: false });
    expect(main.statuses.map((s) => s.id)).toEqual([8_000, 8_001, 142, 143]);
    expect(archived.isArchive).toBe(true);
  });

  it('refuses a batch over 250 before sending it', async () => {
    seen.length = 0;
    const many = Array.from({ length: 251 }, (_, i) => ({ entityId: i + 1, text: 'x', requestId: String(i) }));
    await expect(writeApi().addContactNotes(creds, many)).rejects.toThrow(/at most 250/);
    expect(seen).toHaveLength(0);
  });
});
