import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '@masivo/simulators/whatsapp';
import type { ExplicitRecipientInput } from '@masivo/contract/explicit-recipients';
import { rowsOf } from '../src/db/sql';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { getCampaign } from '../src/services/campaigns/campaign-queries';
import { addExplicitRecipients, createExplicitCampaign } from '../src/services/campaigns/explicit-recipients';
import { preflightForCampaign } from '../src/services/campaigns/preflight';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { updateCampaign } from '../src/services/campaigns/update-campaign';
import { AUTHENTICATION_TO_BSUID } from '../src/engine/campaigns/sender';
import { buildSendComponents } from '../src/services/variables/render';
import { createTestApp, type TestApp } from './helpers/app';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { FAST_ENGINE, waitFor } from './helpers/engine-bed';
import { IMAGE_URL_TEMPLATE, TEMPLATE_LIST_PAGE } from './fixtures/meta-templates';

/**
 * Campaigns with explicit recipients (0039): phones or BSUIDs given with their own parameters,
 * staged while the campaign is a draft, frozen at the start through the audience classifier,
 * and rendered with each recipient's values first. Runs on PGlite, and on PostgreSQL with
 * TEST_DATABASE_URL.
 */
const APP_SECRET = 'test-whatsapp-app-secret';
const NUMBER = { phoneNumberId: '7391', wabaId: '8391', token: 'explicit-tok', ratePerSecond: 50 };
const BSUID = 'AR.13491208655302741918';
const BLOCKED_BSUID = 'AR.99991208655302741918';

let t: TestApp;
let sim: WhatsAppSim;
let engine: CampaignEngine;
let world: CampaignWorld;
let owner: { userId: number; headers: { authorization: string } };
let seasonal = 0;
let media: Server;
let base = '';
let tlsSetting: string | undefined;

/**
 * The simulator downloads a header link before it accepts the message, as Meta does: a local
 * https server with a self-signed certificate stands in for the tenant's file host, trusted by
 * this process while the file runs.
 */
function mediaServer(): Server {
  const dir = mkdtempSync(join(tmpdir(), 'explicit-media-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  return createServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (_req, res) => {
    const body = Buffer.from('JPEG-BYTES');
    res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(body.length) }).end(body);
  });
}

const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app.inject({ method, url: `/api${url}`, headers: owner.headers, ...(payload !== undefined ? { payload } : {}) });

/** A draft on `seasonal_promotion` (image header, body {{1}} {{2}} {{3}}, URL button): only {{3}} is mapped. */
async function draft(name: string) {
  return createExplicitCampaign(t.ctx, owner.userId, { name, whatsapp_account_id: world.whatsappAccountId, template_id: seasonal });
}

const full = (phone: string, n: number, extra: Record<string, string> = {}): ExplicitRecipientInput => ({
  phone,
  params: { header_media: `${base}/p${n}.jpg`, variable_1: `fin de mes ${n}`, variable_2: `COD${n}`, button_0: `promo${n}`, ...extra },
});

const staged = async (campaignId: number) =>
  Number((await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from campaign_explicit_recipients where campaign_id = ${campaignId}`))[0]!.n);

beforeAll(async () => {
  media = mediaServer();
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(media.address() as { port: number }).port}`;
  tlsSetting = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
  sim = await startWhatsAppSim({
    appSecret: APP_SECRET,
    pairLimit: 1000,
    rules: { usernameShare: 0 },
    numbers: [{ phoneNumberId: NUMBER.phoneNumberId, wabaId: NUMBER.wabaId, token: NUMBER.token, displayPhoneNumber: '5491100000000', throughput: 1000 }],
    templates: TEMPLATE_LIST_PAGE.data.map((tpl) => ({
      wabaId: NUMBER.wabaId, name: tpl.name, language: tpl.language, category: tpl.category as 'MARKETING',
      components: tpl.components, parameter_format: tpl.parameter_format as 'NAMED',
    })),
  });
  t = await createTestApp({ WHATSAPP_GRAPH_URL: sim.graphUrl, WHATSAPP_APP_SECRET: APP_SECRET });
  const signed = await t.signUp();
  owner = { userId: signed.userId, headers: signed.headers };
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, { number: NUMBER });
  expect((await api('POST', '/templates/sync', { whatsapp_account_id: world.whatsappAccountId })).statusCode).toBe(200);
  const list = (await api('GET', `/templates/account/${world.whatsappAccountId}`)).json() as Array<{ id: number; name: string }>;
  seasonal = list.find((x) => x.name === IMAGE_URL_TEMPLATE.name)!.id;
  const saved = await api('POST', `/variables/template/${seasonal}/mappings`, {
    mappings: [{ templateVariable: 'variable_3', sourceType: 'static', defaultValue: '25%' }],
  });
  expect(saved.statusCode).toBe(200);
  engine = startCampaignEngine(t.ctx, FAST_ENGINE);
});

afterAll(async () => {
  await engine?.stop();
  await sim?.close();
  await t?.close();
  await new Promise((r) => media?.close(r));
  if (tlsSetting === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
  else process.env.NODE_TLS_REJECT_UNAUTHORIZED = tlsSetting;
});

describe('creating a campaign with explicit recipients', () => {
  it('is a draft without a Kommo account, even when its template leaves slots to the recipients', async () => {
    const c = await draft('Explícita');
    expect(c).toMatchObject({ status: 'draft', audience_kind: 'explicit', kommo_account_id: null, total_recipients: 0, template_id: seasonal });
    // The console's list and detail answer with it.
    const listed = await api('GET', '/campaigns');
    expect(listed.statusCode).toBe(200);
    expect((listed.json() as Array<{ id: number; audience_kind: string }>).find((x) => x.id === c.id)?.audience_kind).toBe('explicit');
    expect((await api('GET', `/campaigns/${c.id}`)).statusCode).toBe(200);
  });

  it('refuses a number of another organisation (404)', async () => {
    const other = await t.signUp();
    await expect(
      createExplicitCampaign(t.ctx, other.userId, { name: 'Ajena', whatsapp_account_id: world.whatsappAccountId, template_id: seasonal }),
    ).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('adding recipients', () => {
  it('refuses the whole batch with a 422 listing the problems by index, writing nothing', async () => {
    const c = await draft('Lote inválido');
    await addExplicitRecipients(t.ctx, owner.userId, c.id, [full('+5491130000001', 1)]);
    const bad: ExplicitRecipientInput[] = [
      full('+5491130000002', 2),
      full('+5491130000003', 3, { variable_9: 'x' }),
      { phone: '+5491130000004', params: { header_media: 'https://cdn.example.com/a.jpg', variable_1: 'a', button_0: 'b' } },
      full('+5491130000005', 5, { header_media: 'http://cdn.example.com/a.jpg' }),
      full('+1555', 6),
      { phone: '+5491130000007', bsuid: BSUID },
    ];
    const err = await addExplicitRecipients(t.ctx, owner.userId, c.id, bad).catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 422 });
    const message = (err as Error).message;
    // Schema problems first (index 4: not E.164, index 5: both addresses).
    expect(message).toMatch(/Destinatario 5: phone: El teléfono debe estar en formato E\.164/);
    expect(message).toMatch(/Destinatario 6: Indica exactamente uno de phone o bsuid/);
    expect(await staged(c.id)).toBe(1);

    const err2 = await addExplicitRecipients(t.ctx, owner.userId, c.id, bad.slice(0, 4)).catch((e: unknown) => e);
    expect(err2).toMatchObject({ statusCode: 422 });
    const m2 = (err2 as Error).message;
    expect(m2).not.toMatch(/Destinatario 1:/);
    expect(m2).toMatch(/Destinatario 2: el parámetro «variable_9» no corresponde a la plantilla/);
    expect(m2).toMatch(/Destinatario 3: falta el parámetro «variable_2»/);
    expect(m2).toMatch(/Destinatario 4: el parámetro «header_media» debe ser un enlace https/);
    expect(await staged(c.id)).toBe(1);
    expect((await getCampaign(t.ctx.db, owner.userId, c.id)).total_recipients).toBe(1);
  });

  it('takes at most 1,000 per batch, appending after the last position', async () => {
    const c = await draft('Mil');
    const many = (n: number, from: number) => Array.from({ length: n }, (_, i) => full(`+54911${String(40_000_000 + from + i)}`, i));
    await expect(addExplicitRecipients(t.ctx, owner.userId, c.id, many(1001, 0))).rejects.toMatchObject({
      statusCode: 422,
      message: 'Se admiten hasta 1000 destinatarios por lote',
    });
    expect(await addExplicitRecipients(t.ctx, owner.userId, c.id, many(1000, 0))).toEqual({ added: 1000, total: 1000 });
    expect(await addExplicitRecipients(t.ctx, owner.userId, c.id, many(2, 1000))).toEqual({ added: 2, total: 1002 });
    const [last] = await rowsOf<{ position: number; phone: string }>(
      t.ctx.db,
      sql`select position, phone from campaign_explicit_recipients where campaign_id = ${c.id} order by position desc limit 1`,
    );
    expect(Number(last!.position)).toBe(1002);
    expect(last!.phone).toBe('+5491140001001');
  });

  it('only to its own explicit drafts: another organisation gets a 404, a filter campaign a 409', async () => {
    const c = await draft('Aislada');
    const other = await t.signUp();
    await expect(addExplicitRecipients(t.ctx, other.userId, c.id, [full('+5491130000009', 9)])).rejects.toMatchObject({ statusCode: 404 });
    expect(await staged(c.id)).toBe(0);
    const filtered = await createCampaign(t.ctx, owner.userId, {
      name: 'Con filtro', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: world.templateId,
    });
    await expect(addExplicitRecipients(t.ctx, owner.userId, filtered.id, [full('+5491130000009', 9)])).rejects.toMatchObject({ statusCode: 409 });
  });
});

describe('pure rendering: a recipient\'s parameter wins over the mapping', () => {
  it('header link, body, and button from params; the rest from the mappings', () => {
    const components = buildSendComponents(
      { components: IMAGE_URL_TEMPLATE.components as never, parameterFormat: 'POSITIONAL' },
      [
        { templateVariable: 'header_media', sourceType: 'static', sourceField: '', defaultValue: 'https://cdn.example.com/fixed.jpg' },
        { templateVariable: 'variable_1', sourceType: 'static', sourceField: '', defaultValue: 'mapeado' },
        { templateVariable: 'variable_2', sourceType: 'static', sourceField: '', defaultValue: 'M2' },
        { templateVariable: 'variable_3', sourceType: 'static', sourceField: '', defaultValue: '10%' },
        { templateVariable: 'button_0', sourceType: 'static', sourceField: '', defaultValue: 'fijo' },
      ],
      { name: '', first_name: '', last_name: '', phone: null, email: null, custom_fields: {} },
      { headerMediaId: '123456', params: { header_media: 'https://cdn.example.com/own.jpg', variable_1: 'propio\ncon salto', button_0: 'mio' } },
    );
    expect(components).toEqual([
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/own.jpg' } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'propio con salto' }, { type: 'text', text: 'M2' }, { type: 'text', text: '10%' }] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'mio' }] },
    ]);
  });
});

describe('pre-flight, freeze and send', () => {
  it('classifies, freezes with reasons, and sends each recipient its own parameters', async () => {
    const c = await draft('Envío explícito');
    // The blacklist of any Kommo account of the organisation applies (the campaign has none),
    // by phone key and by BSUID; opt-outs by phone key.
    await t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, bsuid)
      values (${owner.userId}, ${world.kommoAccountId}, '+5491150000003', '541150000003', null),
             (${owner.userId}, ${world.kommoAccountId}, ${BLOCKED_BSUID}, ${BLOCKED_BSUID}, ${BLOCKED_BSUID})`);
    await t.ctx.db.execute(sql`insert into opt_outs (user_id, phone_key, phone, word) values (${owner.userId}, '541150000004', '+5491150000004', 'BAJA')`);
    const recipients: ExplicitRecipientInput[] = [
      full('+5491150000001', 1),
      full('+5491150000002', 2, { variable_3: '50%' }),
      full('+5491150000003', 3), // blacklisted
      full('+5491150000004', 4), // opted out
      full('+5491150000001', 5), // a repeated phone: the first position is attempted
      { bsuid: BSUID, params: { header_media: `${base}/b.jpg`, variable_1: 'usuaria', variable_2: 'BSU', button_0: 'bsu' } },
      { bsuid: BLOCKED_BSUID, params: { header_media: `${base}/b.jpg`, variable_1: 'x', variable_2: 'y', button_0: 'z' } },
    ];
    expect(await addExplicitRecipients(t.ctx, owner.userId, c.id, recipients)).toEqual({ added: 7, total: 7 });
    // A staged row without a valid phone (the API refuses those, a row written otherwise is still classified).
    await t.ctx.db.execute(sql`insert into campaign_explicit_recipients (campaign_id, user_id, position, phone, phone_key)
      values (${c.id}, ${owner.userId}, 8, '+000', null)`);

    const pre = await preflightForCampaign(t.ctx.db, owner.userId, c.id);
    const excluded = Object.fromEntries(pre.excluded.map((e) => [e.reason, e.count]));
    expect(pre).toMatchObject({ matched: 8, attempted: 3, template_problem: null });
    expect(excluded).toMatchObject({ invalid_phone: 1, duplicate: 1, blacklisted: 3, us_marketing: 0, frequency_cap: 0 });
    expect(pre.cost.by_country.map((x) => x.country).sort()).toEqual(['AR']);
    // The console's pre-flight route answers too.
    expect((await api('GET', `/campaigns/${c.id}/preflight`)).statusCode).toBe(200);

    sim.reset();
    await startCampaign(t.ctx, owner.userId, c.id);
    // Not a draft any more: no more recipients.
    await expect(addExplicitRecipients(t.ctx, owner.userId, c.id, [full('+5491150000009', 9)])).rejects.toMatchObject({
      statusCode: 409,
      message: expect.stringMatching(/^Solo se pueden agregar destinatarios a una campaña en borrador/),
    });
    const done = await waitFor(() => getCampaign(t.ctx.db, owner.userId, c.id), (x) => x.status === 'completed', 15_000, 'completed');

    const rows = await rowsOf<{ phone: string; status: string; error_message: string | null; bsuid: string | null; contact_id: number | null }>(
      t.ctx.db,
      sql`select phone, status, error_message, bsuid, contact_id from campaign_recipients where campaign_id = ${c.id} order by id`,
    );
    // (A recipient that failed shows Meta's message here rather than 'sent'.)
    expect(rows.map((r) => [r.phone, r.status === 'skipped' || r.status === 'failed' ? r.error_message : 'sent'])).toEqual([
      ['+5491150000001', 'sent'],
      ['+5491150000002', 'sent'],
      ['+5491150000003', 'Número en la lista negra'],
      ['+5491150000004', 'Número en la lista negra'],
      ['+5491150000001', 'Número repetido: ya lo recibe otro contacto de la campaña'],
      [BSUID, 'sent'],
      [BLOCKED_BSUID, 'Número en la lista negra'],
      ['+000', 'Sin número de teléfono válido'],
    ]);
    expect(done).toMatchObject({ total_recipients: 8, skipped_count: 5, messages_sent: 3, kommo_account_id: null });
    expect(rows.every((r) => r.contact_id === null)).toBe(true);
    expect(rows[5]!.bsuid).toBe(BSUID);

    const sent = new Map(sim.messages().map((m) => [m.to, m.components]));
    expect(sent.size).toBe(3);
    expect(sent.get('5491150000001')).toEqual([
      { type: 'header', parameters: [{ type: 'image', image: { link: `${base}/p1.jpg` } }] },
      { type: 'body', parameters: [{ type: 'text', text: 'fin de mes 1' }, { type: 'text', text: 'COD1' }, { type: 'text', text: '25%' }] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'promo1' }] },
    ]);
    // A recipient's value for a mapped slot wins over the mapping.
    expect(sent.get('5491150000002')![1]).toEqual({
      type: 'body',
      parameters: [{ type: 'text', text: 'fin de mes 2' }, { type: 'text', text: 'COD2' }, { type: 'text', text: '50%' }],
    });
    // The BSUID went out through `recipient`.
    expect(sent.get(BSUID)![1].parameters[0]).toEqual({ type: 'text', text: 'usuaria' });
  });
});

describe('what an explicit campaign does not allow', () => {
  it('refuses filters, a Kommo account, and another template once it has recipients (409)', async () => {
    const c = await draft('Sin filtros');
    await expect(updateCampaign(t.ctx, owner.userId, c.id, { filters: { tags: ['vip'] } })).rejects.toMatchObject({ statusCode: 409 });
    await expect(updateCampaign(t.ctx, owner.userId, c.id, { kommo_account_id: world.kommoAccountId })).rejects.toMatchObject({ statusCode: 409 });
    // Before any recipient the template may change; after, their parameters hold it.
    await updateCampaign(t.ctx, owner.userId, c.id, { name: 'Renombrada' });
    await addExplicitRecipients(t.ctx, owner.userId, c.id, [full('+5491160000001', 1)]);
    await expect(updateCampaign(t.ctx, owner.userId, c.id, { template_id: world.templateId })).rejects.toMatchObject({
      statusCode: 409,
      message: expect.stringMatching(/^La plantilla no se puede cambiar/),
    });
  });

  it('skips a BSUID recipient of an authentication template with the reason', async () => {
    const [tpl] = await rowsOf<{ id: number }>(
      t.ctx.db,
      sql`insert into templates (user_id, whatsapp_account_id, name, language, category, status, components)
          values (${owner.userId}, ${world.whatsappAccountId}, 'codigo_acceso', 'es', 'AUTHENTICATION', 'approved',
            '[{"type":"BODY","text":"Tu código es {{1}}."}]'::jsonb) returning id`,
    );
    const c = await createExplicitCampaign(t.ctx, owner.userId, { name: 'Códigos', whatsapp_account_id: world.whatsappAccountId, template_id: Number(tpl!.id) });
    await addExplicitRecipients(t.ctx, owner.userId, c.id, [{ bsuid: BSUID, params: { variable_1: '123456' } }]);
    await startCampaign(t.ctx, owner.userId, c.id);
    const done = await waitFor(() => getCampaign(t.ctx.db, owner.userId, c.id), (x) => x.status === 'completed', 15_000, 'completed');
    expect(done).toMatchObject({ skipped_count: 1, messages_sent: 0 });
    const [row] = await rowsOf<{ status: string; error_message: string }>(
      t.ctx.db,
      sql`select status, error_message from campaign_recipients where campaign_id = ${c.id}`,
    );
    expect(row).toEqual({ status: 'skipped', error_message: AUTHENTICATION_TO_BSUID });
  });
});
