import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhatsAppSim, type WhatsAppSim } from '@masivo/simulators/whatsapp';
import { createButtonPayload } from '../src/engine/campaigns/button-payload';
import { startCampaignEngine, type CampaignEngine } from '../src/engine/campaigns/index';
import { guardedLookup } from '../src/integrations/media/safe-fetch';
import { isBlockedAddress } from '../src/lib/blocked-address';
import { getCampaign } from '../src/services/campaigns/campaign-queries';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { createTestApp, type TestApp } from './helpers/app';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';
import { FAST_ENGINE, waitFor } from './helpers/engine-bed';
import {
  CAROUSEL_TEMPLATE,
  COUPON_SEND_COMPONENTS,
  IMAGE_URL_SEND_COMPONENTS,
  IMAGE_URL_TEMPLATE,
  LTO_TEMPLATE,
  NAMED_SEND_COMPONENTS,
  NAMED_TEMPLATE,
  TEMPLATE_LIST_PAGE,
} from './fixtures/meta-templates';

const APP_SECRET = 'test-whatsapp-app-secret';
const NUMBER = { phoneNumberId: '7001', wabaId: '8001', token: 'rich-tok', ratePerSecond: 20 };
const MB = 1024 * 1024;

let t: TestApp;
let sim: WhatsAppSim;
let media: Server;
let base = '';
let engine: CampaignEngine;
let world: CampaignWorld;
let owner: { userId: number; headers: { authorization: string } };
let photoGone = false;
const ids: Record<string, number> = {};

/** A local https server with a self-signed certificate standing in for a tenant's file host. */
function mediaServer(): Server {
  const dir = mkdtempSync(join(tmpdir(), 'rich-media-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
  return createServer({ key: readFileSync(join(dir, 'k.pem')), cert: readFileSync(join(dir, 'c.pem')) }, (req, res) => {
    const send = (type: string, body: Buffer) => res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) }).end(body);
    if (req.url === '/photo.jpg') send('image/jpeg', Buffer.from('JPEG-BYTES'));
    else if (req.url === '/flaky.jpg') return photoGone ? res.writeHead(404).end() : send('image/jpeg', Buffer.from('JPEG'));
    else if (req.url === '/doc.pdf') send('application/pdf', Buffer.from('%PDF-1.4'));
    else if (req.url === '/big.jpg') send('image/jpeg', Buffer.alloc(5 * MB + 1));
    else if (req.url === '/moved') res.writeHead(302, { location: '/photo.jpg' }).end();
    else res.writeHead(404).end();
  });
}

const api = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.app.inject({ method, url: `/api${url}`, headers: owner.headers, ...(payload !== undefined ? { payload } : {}) });
const save = (name: string, mappings: unknown[]) => api('POST', `/variables/template/${ids[name]}/mappings`, { mappings });
const fixed = (templateVariable: string, defaultValue: string) => ({ templateVariable, sourceType: 'static', defaultValue });

async function runCampaign(name: string) {
  sim.reset();
  const c = await createCampaign(t.ctx, owner.userId, {
    name: `Campaña ${name}`,
    kommo_account_id: world.kommoAccountId,
    whatsapp_account_id: world.whatsappAccountId,
    template_id: ids[name],
    filters: {},
  });
  await startCampaign(t.ctx, owner.userId, c.id);
  return c.id;
}

beforeAll(async () => {
  media = mediaServer();
  await new Promise<void>((r) => media.listen(0, '127.0.0.1', r));
  base = `https://127.0.0.1:${(media.address() as { port: number }).port}`;
  sim = await startWhatsAppSim({
    appSecret: APP_SECRET,
    pairLimit: 1000,
    numbers: [{ phoneNumberId: NUMBER.phoneNumberId, wabaId: NUMBER.wabaId, token: NUMBER.token, displayPhoneNumber: '5491100000000', throughput: 1000 }],
    templates: TEMPLATE_LIST_PAGE.data.map((tpl) => ({
      wabaId: NUMBER.wabaId, name: tpl.name, language: tpl.language, category: tpl.category as 'MARKETING',
      components: tpl.components, parameter_format: tpl.parameter_format as 'NAMED', quality_score: (tpl as { quality_score?: { score: string } }).quality_score,
    })),
  });
  t = await createTestApp({ WHATSAPP_GRAPH_URL: sim.graphUrl, WHATSAPP_APP_SECRET: APP_SECRET, MEDIA_ALLOW_PRIVATE_HOSTS: '1' });
  const signed = await t.signUp();
  owner = { userId: signed.userId, headers: signed.headers };
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, { number: NUMBER, contacts: 2 });
  const synced = await api('POST', '/templates/sync', { whatsapp_account_id: world.whatsappAccountId });
  expect(synced.statusCode).toBe(200);
  const list = (await api('GET', `/templates/account/${world.whatsappAccountId}`)).json() as Array<{ id: number; name: string }>;
  for (const tpl of list) ids[tpl.name] = tpl.id;
  engine = startCampaignEngine(t.ctx, FAST_ENGINE);
});

afterAll(async () => {
  await engine?.stop();
  await sim?.close();
  await t?.close();
  await new Promise((r) => media?.close(r));
});

describe('sync keeps every template Meta approves', () => {
  it('keeps each component as Meta returns it, with parameter_format and quality score', async () => {
    const tpl = (await api('GET', `/templates/${ids.seasonal_promotion}`)).json();
    expect(tpl.components).toEqual(IMAGE_URL_TEMPLATE.components);
    expect(tpl).toMatchObject({ parameter_format: 'POSITIONAL', quality_score: 'GREEN', campaign_compatible: true, incompatible_reason: null });
    expect((await api('GET', `/templates/${ids.order_confirmation}`)).json()).toMatchObject({ parameter_format: 'NAMED', components: NAMED_TEMPLATE.components });
  });

  it('syncs carousel and limited-time-offer templates, marked not campaign-compatible with the reason', async () => {
    for (const fixture of [CAROUSEL_TEMPLATE, LTO_TEMPLATE]) {
      const tpl = (await api('GET', `/templates/${ids[fixture.name]}`)).json();
      expect(tpl.components).toEqual(fixture.components);
      expect(tpl.campaign_compatible).toBe(false);
      expect(tpl.incompatible_reason).toMatch(/^No compatible con campañas: /);
      await expect(createCampaign(t.ctx, owner.userId, {
        name: 'x', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: ids[fixture.name], filters: {},
      })).rejects.toMatchObject({ statusCode: 400, message: tpl.incompatible_reason });
    }
  });

  it('offers exactly the slots each template has', async () => {
    const slots = async (name: string) => ((await api('GET', `/variables/template/${ids[name]}`)).json().variables as Array<{ key: string }>).map((s) => s.key);
    expect(await slots('seasonal_promotion')).toEqual(['header_media', 'variable_1', 'variable_2', 'variable_3', 'button_0']);
    expect(await slots('order_confirmation')).toEqual(['header_variable_order_number', 'variable_first_name', 'variable_order_number']);
    expect(await slots('coupon_code_fall2023_25off')).toEqual(['variable_1', 'variable_2', 'button_1']);
    expect(await slots('order_pickup')).toEqual(['header_media']);
  });
});

describe('a campaign whose template has a slot without a mapping', () => {
  it('cannot be created: a Spanish 400 naming the slot', async () => {
    const res = await api('POST', '/campaigns', {
      name: 'Sin mapear', kommo_account_id: world.kommoAccountId, whatsapp_account_id: world.whatsappAccountId, template_id: ids.seasonal_promotion, filters: {},
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error ?? res.json().message).toMatch(/Imagen del encabezado.*Botón 1 \(final de la URL\)/);
  });
});

describe('sending: the exact components of Meta\'s reference', () => {
  it('image header uploaded once and sent by id, positional body, url button suffix', async () => {
    const saved = await save('seasonal_promotion', [
      fixed('header_media', `${base}/photo.jpg`), fixed('variable_1', 'the end of August'), fixed('variable_2', '25OFF'),
      fixed('variable_3', '25%'), fixed('button_0', 'summer2023'),
    ]);
    expect(saved.statusCode).toBe(200);
    const id = await runCampaign('seasonal_promotion');
    await waitFor(() => Promise.resolve(sim.messages().length), (n) => n === 2, 15_000, 'two messages');
    const uploads = sim.mediaUploads();
    expect(uploads).toHaveLength(1);
    expect(uploads[0]).toMatchObject({ phoneNumberId: NUMBER.phoneNumberId, mime: 'image/jpeg', size: 10 });
    for (const m of sim.messages()) expect(m.components).toEqual(IMAGE_URL_SEND_COMPONENTS(uploads[0]!.id));
    await waitFor(() => getCampaign(t.ctx.db, owner.userId, id), (c) => c.status === 'completed', 15_000, 'completed');
  });

  it('named parameters carry parameter_name', async () => {
    expect((await save('order_confirmation', [
      fixed('header_variable_order_number', '860198-230332'), fixed('variable_first_name', 'Jessica'), fixed('variable_order_number', '860198-230332'),
    ])).statusCode).toBe(200);
    await runCampaign('order_confirmation');
    await waitFor(() => Promise.resolve(sim.messages().length), (n) => n === 2, 15_000, 'two messages');
    for (const m of sim.messages()) expect(m.components).toEqual(NAMED_SEND_COMPONENTS);
  });

  it('copy code with coupon_code, quick reply with a signed payload naming campaign and button', async () => {
    expect((await save('coupon_code_fall2023_25off', [fixed('variable_1', '25OFF'), fixed('variable_2', '25%'), fixed('button_1', '25OFF')])).statusCode).toBe(200);
    const id = await runCampaign('coupon_code_fall2023_25off');
    await waitFor(() => Promise.resolve(sim.messages().length), (n) => n === 2, 15_000, 'two messages');
    const payload = createButtonPayload(t.ctx.config.APP_SECRET).sign({ campaignId: id, index: 0 });
    for (const m of sim.messages()) expect(m.components).toEqual(COUPON_SEND_COMPONENTS(payload));
    expect(createButtonPayload(t.ctx.config.APP_SECRET).verify(payload)).toEqual({ campaignId: id, index: 0 });
    expect(createButtonPayload(t.ctx.config.APP_SECRET).verify(payload.replace(/.$/, '0'))).toBeNull();
  });

  it('a location header with coordinates, name and address', async () => {
    expect((await save('order_pickup', [fixed('header_media', '37.483307,-122.148981;Pablo Morales;1 Hacker Way, Menlo Park, CA 94025')])).statusCode).toBe(200);
    await runCampaign('order_pickup');
    await waitFor(() => Promise.resolve(sim.messages().length), (n) => n === 2, 15_000, 'two messages');
    expect(sim.messages()[0]!.components[0]).toEqual({
      type: 'header',
      parameters: [{ type: 'location', location: { latitude: '37.483307', longitude: '-122.148981', name: 'Pablo Morales', address: '1 Hacker Way, Menlo Park, CA 94025' } }],
    });
  });

  it('pauses the campaign with the Spanish reason when the media upload fails', async () => {
    // A jpg for a DOCUMENT header is refused at save time already.
    expect((await save('order_invoice', [fixed('header_media', `${base}/flaky.jpg`), fixed('variable_1', 'Pablo')])).statusCode).toBe(400);
    expect((await save('seasonal_promotion', [
      fixed('header_media', `${base}/flaky.jpg`), fixed('variable_1', 'a'), fixed('variable_2', 'b'), fixed('variable_3', 'c'), fixed('button_0', 'd'),
    ])).statusCode).toBe(200);
    photoGone = true;
    try {
      const id = await runCampaign('seasonal_promotion');
      const c = await waitFor(() => getCampaign(t.ctx.db, owner.userId, id), (x) => x.status === 'paused', 15_000, 'paused');
      expect(JSON.stringify(c)).toContain('No se pudo subir el archivo del encabezado a WhatsApp: el enlace respondió con el estado HTTP 404');
      expect(sim.messages()).toHaveLength(0);
    } finally {
      photoGone = false;
    }
  });
});

describe('bad mappings: a Spanish 400 and nothing half-saved', () => {
  const good = () => [fixed('variable_1', 'x'), fixed('variable_2', 'y'), fixed('variable_3', 'z'), fixed('button_0', 'w')];
  const cases: Array<[string, string, RegExp]> = [
    ['a non-https link', 'http://127.0.0.1/photo.jpg', /^header_media: el enlace del archivo debe empezar con https:\/\//],
    ['a media type that does not match the header', '/doc.pdf', /^header_media: el enlace entrega application\/pdf y el encabezado espera imagen/],
    ['a file over Meta\'s limit', '/big.jpg', /^header_media: el archivo pesa 5\.0 MB y Meta admite imagen \(JPEG o PNG, hasta 5 MB\)/],
    ['a link that is not found', '/missing.jpg', /^header_media: el enlace respondió con el estado HTTP 404/],
  ];
  for (const [what, link, message] of cases) {
    it(`refuses ${what}`, async () => {
      const before = (await api('GET', `/variables/template/${ids.seasonal_promotion}/mappings`)).json();
      const res = await save('seasonal_promotion', [fixed('header_media', link.startsWith('/') ? `${base}${link}` : link), ...good()]);
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toMatch(new RegExp(message.source.replace(/^\^/, '')));
      expect((await api('GET', `/variables/template/${ids.seasonal_promotion}/mappings`)).json()).toEqual(before);
    });
  }

  it('follows a redirect to a valid file', async () => {
    expect((await save('seasonal_promotion', [fixed('header_media', `${base}/moved`), ...good()])).statusCode).toBe(200);
  });

  it('refuses a named placeholder key with invalid characters, a static slot without a value, a long coupon', async () => {
    const bad = await save('order_confirmation', [fixed('variable_First-Name', 'Ana')]);
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('Variable inválida');
    const empty = await save('order_confirmation', [{ templateVariable: 'variable_first_name', sourceType: 'static', defaultValue: '' }]);
    expect(empty.statusCode).toBe(400);
    expect(JSON.stringify(empty.json())).toContain('Escribe un valor fijo para variable_first_name');
    const coupon = await save('coupon_code_fall2023_25off', [fixed('button_1', 'CODIGOMUYLARGO123')]);
    expect(coupon.statusCode).toBe(400);
    expect(coupon.json().error ?? coupon.json().message).toBe('button_1: el código de cupón admite hasta 15 caracteres');
  });
});

describe('the media fetcher refuses private addresses', () => {
  it('classifies loopback, private, link-local, CGNAT and mapped addresses as blocked', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '0.0.0.0']) {
      expect(isBlockedAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '157.240.22.35', '2a03:2880:f12f:83:face:b00c:0:25de']) expect(isBlockedAddress(a), a).toBe(false);
  });

  it('refuses a name that resolves to a private address (checked after DNS, at connect time)', async () => {
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    expect(err?.code).toBe('EMEDIABLOCKED');
  });

  it('refuses private hosts on save unless MEDIA_ALLOW_PRIVATE_HOSTS=1', async () => {
    const strict = await createTestApp({ WHATSAPP_GRAPH_URL: sim.graphUrl, WHATSAPP_APP_SECRET: APP_SECRET });
    try {
      const s = await strict.signUp();
      const w = await seedCampaignWorld(strict.ctx.db, strict.ctx.secrets, s.userId, { number: { ...NUMBER }, contacts: 0 });
      await strict.app.inject({ method: 'POST', url: '/api/templates/sync', headers: s.headers, payload: { whatsapp_account_id: w.whatsappAccountId } });
      const list = (await strict.app.inject({ method: 'GET', url: `/api/templates/account/${w.whatsappAccountId}`, headers: s.headers })).json() as Array<{ id: number; name: string }>;
      const tplId = list.find((x) => x.name === 'seasonal_promotion')!.id;
      for (const link of [`${base}/photo.jpg`, `https://localhost:${new URL(base).port}/photo.jpg`]) {
        const res = await strict.app.inject({
          method: 'POST', url: `/api/variables/template/${tplId}/mappings`, headers: s.headers,
          payload: { mappings: [fixed('header_media', link)] },
        });
        expect(res.statusCode).toBe(400);
        expect(JSON.stringify(res.json())).toContain('dirección privada o local');
      }
    } finally {
      await strict.close();
    }
  });
});
