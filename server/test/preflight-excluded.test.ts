import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCLUSION_REASONS, type ExcludedPage, type ExclusionReason, type Preflight } from '@masivo/contract/preflight';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { setFrequencyCap } from '../src/services/campaigns/frequency-cap';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { createTestApp, type TestApp } from './helpers/app';
import { insertContact, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

/**
 * The contacts behind each exclusion reason of the pre-flight: the same contacts the count
 * counts (before the first start and once frozen), as paged JSON and as a CSV to download, only
 * ever the tenant's own.
 */
let t: TestApp;
let userId: number;
let headers: { authorization: string };
let w: CampaignWorld;

/** Who is excluded and why: the expected names per reason. */
const EXPECTED: Record<ExclusionReason, string[]> = {
  invalid_phone: ['=HYPERLINK("http://x")', 'Colombia nacional', 'Sin teléfono'],
  duplicate: ['Ana otra vez'],
  blacklisted: ['Bloqueado', 'Dio de baja'],
  frequency_cap: ['Saturado'],
  us_marketing: ['Estados Unidos'],
  template_unfit: [],
};

beforeAll(async () => {
  t = await createTestApp();
  ({ userId, headers } = await t.signUp());
  w = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, userId, { number: { phoneNumberId: '1501', wabaId: '2501', token: 'tok' } });
  let k = 1;
  const add = (name: string, phone: string | null, phoneRaw: string | null = phone, tags = ['general']) =>
    insertContact(t.ctx.db, userId, w.kommoAccountId, { kommoId: k++, name, phone, phoneRaw, tags });
  await add('Ana', '+5491100000001', '+54 9 11 0000-0001', ['vip']);
  await add('Ana otra vez', '+5491100000001', '011 15 0000-0001', ['vip']);
  await add('Beto', '+5491100000002');
  await add('Colombia nacional', null, '3126547882', ['vip']);
  await add('Sin teléfono', null, null);
  // A name a spreadsheet would run as a formula: the CSV must keep it as text.
  await add('=HYPERLINK("http://x")', null, '+1 (000) 123');
  await add('Estados Unidos', '+12025550123');
  await add('Bloqueado', '+5491100000007', '11 0000-0007', ['vip']);
  await add('Dio de baja', '+5491100000008');
  await add('Saturado', '+5491100000009');
  await t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
    values (${userId}, ${w.kommoAccountId}, '+5491100000007', '541100000007', 'pidió baja')`);
  await t.ctx.db.execute(sql`insert into opt_outs (user_id, whatsapp_account_id, phone_key, phone, word)
    values (${userId}, ${w.whatsappAccountId}, '541100000008', '+5491100000008', 'BAJA')`);
  // Two marketing sends to "Saturado" yesterday, one per past campaign: the cap (2 in 7 days) is reached.
  for (let i = 0; i < 2; i++) {
    const past = await createCampaign(t.ctx, userId, {
      name: `Anterior ${i}`,
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: w.whatsappAccountId,
      template_id: w.templateId,
      filters: { searchQuery: 'nadie-coincide', tags: [], tagOperator: 'OR', customFieldFilters: {} },
    });
    await t.ctx.db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, sent_at)
      values (${past.id}, ${userId}, '+5491100000009', '541100000009', 'sent', now() - interval '1 day')`);
  }
  await setFrequencyCap(t.ctx.db, userId, { cap: { max_messages: 2, days: 7 } });
});
afterAll(() => t.close());

const ALL = { searchQuery: '', tags: [], tagOperator: 'OR' as const, customFieldFilters: {} };
const draft = (filters: object = ALL) => ({
  kommo_account_id: w.kommoAccountId,
  whatsapp_account_id: w.whatsappAccountId,
  template_id: w.templateId,
  filters,
});

async function pagesOf(url: (after: number) => { method: 'GET' | 'POST'; url: string; payload?: object }, as = headers) {
  const names: string[] = [];
  let after = 0;
  let pages = 0;
  for (;;) {
    const res = await t.app.inject({ ...url(after), headers: as });
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as ExcludedPage;
    names.push(...page.contacts.map((c) => c.name));
    pages++;
    if (page.next_after === null) return { names, pages };
    after = page.next_after;
  }
}

describe('the contacts behind each exclusion', () => {
  it('lists, for every reason, exactly the contacts the pre-flight counts', async () => {
    const pre = (await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight', headers, payload: draft() })).json() as Preflight;
    for (const reason of EXCLUSION_REASONS) {
      const res = await t.app.inject({ method: 'POST', url: `/api/campaigns/preflight/excluded?reason=${reason}`, headers, payload: draft() });
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as ExcludedPage;
      expect(page.contacts.map((c) => c.name).sort(), reason).toEqual(EXPECTED[reason]);
      expect(page.contacts.length, reason).toBe(pre.excluded.find((e) => e.reason === reason)!.count);
      expect(page.label).toBe(pre.excluded.find((e) => e.reason === reason)!.label);
    }
  });

  it('lists everyone otherwise sendable as "plantilla no apta" when the template cannot be sent', async () => {
    await t.ctx.db.execute(sql`update templates set status = 'pending' where id = ${w.templateId}`);
    try {
      const res = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight/excluded?reason=template_unfit', headers, payload: draft() });
      expect((res.json() as ExcludedPage).contacts.map((c) => c.name).sort()).toEqual(['Ana', 'Beto']);
    } finally {
      await t.ctx.db.execute(sql`update templates set status = 'approved' where id = ${w.templateId}`);
    }
  });

  it('gives the phone as stored in Kommo, the number it was read as, and the Kommo id', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight/excluded?reason=invalid_phone', headers, payload: draft() });
    expect((res.json() as ExcludedPage).contacts).toContainEqual({ kommo_id: 4, name: 'Colombia nacional', phone: '3126547882', normalized: null, reason: 'invalid_phone' });
    const dup = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight/excluded?reason=duplicate', headers, payload: draft() });
    expect((dup.json() as ExcludedPage).contacts).toEqual([{ kommo_id: 2, name: 'Ana otra vez', phone: '011 15 0000-0001', normalized: '+5491100000001', reason: 'duplicate' }]);
  });

  it('follows the filter: only the matched contacts are listed', async () => {
    const vip = { ...ALL, tags: ['vip'] };
    const res = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight/excluded?reason=invalid_phone', headers, payload: draft(vip) });
    expect((res.json() as ExcludedPage).contacts.map((c) => c.name)).toEqual(['Colombia nacional']);
  });

  it('pages through a list with a cursor, nothing twice and nothing left out', async () => {
    const { names, pages } = await pagesOf((after) => ({
      method: 'POST',
      url: `/api/campaigns/preflight/excluded?reason=invalid_phone&limit=1&after=${after}`,
      payload: draft(),
    }));
    expect(pages).toBe(3);
    expect(names.sort()).toEqual(EXPECTED.invalid_phone);
  });

  it('downloads a list as CSV with a BOM, a Spanish header and formulas kept as text', async () => {
    const created = await createCampaign(t.ctx, userId, { name: 'Para descargar', ...draft() });
    const res = await t.app.inject({ method: 'GET', url: `/api/campaigns/${created.id}/preflight/excluded?reason=invalid_phone&format=csv`, headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(new RegExp(`attachment; filename="excluidos-sin-telefono-valido-campana-${created.id}-\\d{4}-\\d{2}-\\d{2}\\.csv"`));
    const lines = res.body.split('\r\n');
    expect(lines[0]).toBe('\uFEFFID Kommo,Nombre,Teléfono en Kommo,Teléfono normalizado,Motivo');
    expect(lines).toContain('4,Colombia nacional,3126547882,,Sin teléfono válido');
    expect(lines).toContain(`6,"'=HYPERLINK(""http://x"")",'+1 (000) 123,,Sin teléfono válido`);
    expect(lines).toContain('5,Sin teléfono,,,Sin teléfono válido');
    expect(lines.filter(Boolean)).toHaveLength(4);
  });

  it('lists the frozen skipped recipients once the campaign has started', async () => {
    const created = await createCampaign(t.ctx, userId, { name: 'Congelada', ...draft() });
    await startCampaign(t.ctx, userId, created.id);
    for (const reason of EXCLUSION_REASONS) {
      const { names } = await pagesOf((after) => ({ method: 'GET', url: `/api/campaigns/${created.id}/preflight/excluded?reason=${reason}&limit=2&after=${after}` }));
      expect(names.sort(), reason).toEqual(EXPECTED[reason]);
    }
    // A contact deleted since the start is still listed, with the phone it was frozen with.
    await t.ctx.db.execute(sql`delete from contacts where user_id = ${userId} and name = 'Estados Unidos'`);
    const res = await t.app.inject({ method: 'GET', url: `/api/campaigns/${created.id}/preflight/excluded?reason=us_marketing`, headers });
    expect((res.json() as ExcludedPage).contacts).toEqual([{ kommo_id: null, name: '', phone: '+12025550123', normalized: '+12025550123', reason: 'us_marketing' }]);
  });

  it('refuses a bad reason, format or cursor in Spanish', async () => {
    for (const [query, message] of [
      ['reason=nada', /Motivo de exclusión inválido/],
      ['', /Motivo de exclusión inválido/],
      ['reason=duplicate&format=xlsx', /Formato inválido/],
      ['reason=duplicate&after=-1', /Cursor inválido/],
      ['reason=duplicate&limit=501', /Máximo 500/],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: `/api/campaigns/preflight/excluded?${query}`, headers, payload: draft() });
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error, query).toMatch(message);
    }
  });

  it('never lists another tenant’s contacts: their campaign is not found, their references neither', async () => {
    const created = await createCampaign(t.ctx, userId, { name: 'Ajena', ...draft() });
    const other = await t.signUp();
    const theirs = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, other.userId, { number: { phoneNumberId: '1502', wabaId: '2502', token: 'tok2' }, contacts: 2 });
    for (const format of ['json', 'csv']) {
      const peek = await t.app.inject({ method: 'GET', url: `/api/campaigns/${created.id}/preflight/excluded?reason=invalid_phone&format=${format}`, headers: other.headers });
      expect(peek.statusCode).toBe(404);
      expect(peek.body).not.toContain('Colombia');
    }
    const mixed = { kommo_account_id: w.kommoAccountId, whatsapp_account_id: theirs.whatsappAccountId, template_id: theirs.templateId, filters: ALL };
    const res = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight/excluded?reason=invalid_phone&format=csv', headers: other.headers, payload: mixed });
    expect(res.statusCode).toBe(404);
    // Their own list holds only their contacts.
    const own = { ...mixed, kommo_account_id: theirs.kommoAccountId };
    const mine = await t.app.inject({ method: 'POST', url: '/api/campaigns/preflight/excluded?reason=invalid_phone', headers: other.headers, payload: own });
    expect(mine.statusCode).toBe(200);
    expect((mine.json() as ExcludedPage).contacts.map((c) => c.name)).not.toContain('Colombia nacional');
  });
});
