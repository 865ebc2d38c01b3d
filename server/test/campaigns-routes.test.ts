import { eq, sql } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  campaignRecipients,
  campaigns,
  contacts,
  kommoAccounts,
  templates,
  templateVariableMappings,
  whatsappAccounts,
} from '../src/db/schema/index';
import { createTestApp, type TestApp } from './helpers/app';
import { rowsOf } from '../src/db/sql';

/**
 * Route-level rules of /api/campaigns: validation, ownership, transitions and the
 * creation checks. Fixtures are rows inserted directly; the sending engine is not running
 * (createTestApp builds the API only), so statuses stay where the routes leave them.
 */

let t: TestApp;
let owner: { headers: { authorization: string }; userId: number };
let other: { headers: { authorization: string }; userId: number };
let fx: Awaited<ReturnType<typeof seedUser>>;
let foreign: Awaited<ReturnType<typeof seedUser>>;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp();
  other = await t.signUp();
  fx = await seedUser(owner.userId, 'propia');
  foreign = await seedUser(other.userId, 'ajena');
});
afterAll(() => t.close());

/** One Kommo account with 3 contacts, one WhatsApp account with templates in every state. */
async function seedUser(userId: number, subdomain: string) {
  const { db, secrets } = t.ctx;
  const [kommo] = await db
    .insert(kommoAccounts)
    .values({ userId, subdomain, accessTokenEnc: secrets.seal('kommo-token'), phoneFieldId: 1, syncStatus: 'synced', syncTotalContacts: 3 })
    .returning();
  await db.insert(contacts).values(
    [
      { name: 'Ana Pérez', firstName: 'Ana', phone: '+5491155550001', tags: ['vip', 'lima'] },
      { name: 'Luis Gómez', firstName: 'Luis', phone: '+5491155550002', tags: ['vip'] },
      { name: 'Sin Etiqueta', firstName: 'Sin', phone: '+5491155550003', tags: [] },
    ].map((c, i) => ({ ...c, userId, accountId: kommo!.id, kommoId: 1000 + i, phoneRaw: c.phone })),
  );
  const wa = async (name: string) =>
    (
      await db
        .insert(whatsappAccounts)
        .values({ userId, name, phoneNumber: '+5491100000000', phoneNumberId: `pn-${subdomain}-${name}`, accessTokenEnc: secrets.seal('wa-token'), businessAccountId: 'waba' })
        .returning()
    )[0]!;
  const whatsapp = await wa('Ventas');
  const otherWhatsapp = await wa('Soporte');
  const template = async (whatsappAccountId: number, name: string, status: string, body: string) =>
    (
      await db
        .insert(templates)
        .values({ userId, whatsappAccountId, name, language: 'es', category: 'marketing', status, components: [{ type: 'BODY', text: body }] })
        .returning()
    )[0]!;
  const approved = await template(whatsapp.id, 'promo', 'approved', 'Hola {{1}}, tenemos una oferta');
  await db.insert(templateVariableMappings).values({ userId, templateId: approved.id, templateVariable: 'variable_1', sourceField: 'first_name' });
  const unmapped = await template(whatsapp.id, 'sin_mapear', 'approved', 'Hola {{1}}');
  const pending = await template(whatsapp.id, 'pendiente', 'pending', 'Sin variables');
  const elsewhere = await template(otherWhatsapp.id, 'otra_cuenta', 'approved', 'Sin variables');
  return { kommo: kommo!, whatsapp, otherWhatsapp, approved, unmapped, pending, elsewhere };
}

const call = (method: InjectOptions['method'], url: string, payload?: unknown, headers = owner.headers) =>
  t.app.inject({ method, url: `/api/campaigns${url}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

const validBody = (over: Record<string, unknown> = {}) => ({
  name: 'Promo de verano',
  description: 'Clientes VIP',
  kommo_account_id: fx.kommo.id,
  whatsapp_account_id: fx.whatsapp.id,
  template_id: fx.approved.id,
  message_type: 'template',
  filters: { searchQuery: '', tags: ['vip'], tagOperator: 'OR', customFieldFilters: {} },
  ...over,
});

async function createDraft(over: Record<string, unknown> = {}) {
  const res = await call('POST', '', validBody(over));
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; status: string };
}

const setStatus = (id: number, status: 'draft' | 'scheduled' | 'sending' | 'completed' | 'paused' | 'cancelled') =>
  t.ctx.db.update(campaigns).set({ status }).where(eq(campaigns.id, id));

const statusOf = async (id: number) => (await call('GET', `/${id}`)).json().status as string;

describe('authentication', () => {
  it('answers 401 without a token on every route', async () => {
    const routes: [InjectOptions['method'], string][] = [
      ['GET', ''],
      ['POST', ''],
      ['GET', '/1'],
      ['PUT', '/1'],
      ['DELETE', '/1'],
      ['POST', '/1/start'],
      ['POST', '/1/pause'],
      ['POST', '/1/retry-failed'],
      ['GET', '/1/messages'],
    ];
    for (const [method, url] of routes) {
      const res = await t.app.inject({ method, url: `/api/campaigns${url}`, ...(method === 'GET' || method === 'DELETE' ? {} : { payload: {} }) });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json().error).toBe('No autorizado. Inicia sesión nuevamente.');
    }
  });
});

describe('validation (400, Spanish)', () => {
  it('requires name, Kommo account, WhatsApp account and template', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '   ' }, 'name: El nombre es requerido'],
      [{ kommo_account_id: undefined }, 'kommo_account_id: La cuenta Kommo es requerida'],
      [{ whatsapp_account_id: 0 }, 'whatsapp_account_id: La cuenta de WhatsApp es requerida'],
      [{ template_id: 'abc' }, 'template_id: La plantilla es requerida'],
      [{ scheduled_at: 'mañana' }, 'scheduled_at: Fecha de programación inválida'],
    ];
    for (const [over, message] of cases) {
      const res = await call('POST', '', validBody(over));
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(res.json().error).toBe(message);
    }
  });

  it('refuses unknown fields, a bad message type, bad filters and malformed JSON', async () => {
    const unknown = await call('POST', '', validBody({ sender: 'x' }));
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatch(/sender/);
    const text = await call('POST', '', validBody({ message_type: 'text' }));
    expect(text.statusCode).toBe(400);
    const filters = await call('POST', '', validBody({ filters: { tagOperator: 'XOR' } }));
    expect(filters.statusCode).toBe(400);
    expect(filters.json().error).toBe('filters.tagOperator: Operador de etiquetas inválido');
    const mode = await call('POST', '', validBody({ filters: { customFieldFilters: { Ciudad: { mode: 'regex' } } } }));
    expect(mode.json().error).toBe('filters.customFieldFilters.Ciudad.mode: Modo de filtro inválido');
    const malformed = await t.app.inject({
      method: 'POST',
      url: '/api/campaigns',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toBe('El cuerpo de la petición no es JSON válido');
    // Nothing was half-written.
    expect((await call('GET', '')).json()).toEqual([]);
  });

  it('validates path ids and the messages query', async () => {
    for (const url of ['/abc', '/0', '/-1', '/99999999999', '/1.5']) {
      const res = await call('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error).toMatch(/^id: /);
    }
    const { id } = await createDraft();
    for (const query of ['status=enviado', 'page=0', 'limit=201', 'limit=abc', 'page=-3']) {
      const res = await call('GET', `/${id}/messages?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().error).toMatch(/^(status|page|limit): /);
    }
    const put = await call('PUT', `/${id}`, { name: '' });
    expect(put.statusCode).toBe(400);
    expect(put.json().error).toBe('name: El nombre es requerido');
    const putUnknown = await call('PUT', `/${id}`, { status: 'completed' });
    expect(putUnknown.statusCode).toBe(400);
    await call('DELETE', `/${id}`);
  });
});

describe('create', () => {
  it('creates a draft without scheduled_at, counting its audience from the filters', async () => {
    const res = await call('POST', '', validBody());
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({
      name: 'Promo de verano',
      description: 'Clientes VIP',
      status: 'draft',
      message_type: 'template',
      template_id: fx.approved.id,
      template_name: 'promo',
      template_language: 'es',
      kommo_account_id: fx.kommo.id,
      whatsapp_account_id: fx.whatsapp.id,
      total_recipients: 2,
      messages_sent: 0,
      scheduled_at: null,
      filters: { searchQuery: '', tags: ['vip'], tagOperator: 'OR', customFieldFilters: {} },
    });
    expect(created.id).toBeGreaterThan(0);
    const fetched = await call('GET', `/${created.id}`);
    expect(fetched.json()).toEqual(created);
    expect((await call('GET', '')).json().map((c: { id: number }) => c.id)).toContain(created.id);

    const all = await createDraft({ filters: undefined, scheduled_at: '' });
    expect(all).toMatchObject({ status: 'draft', total_recipients: 3 });
  });

  it('creates a scheduled campaign with a future scheduled_at and refuses a past one', async () => {
    const at = new Date(Date.now() + 3_600_000);
    const offset = new Date(at.getTime() - 3 * 3_600_000).toISOString().replace('Z', '-03:00');
    const res = await call('POST', '', validBody({ scheduled_at: offset }));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().status).toBe('scheduled');
    expect(Date.parse(res.json().scheduled_at)).toBe(at.getTime());

    const past = await call('POST', '', validBody({ scheduled_at: new Date(Date.now() - 60_000).toISOString() }));
    expect(past.statusCode).toBe(400);
    expect(past.json().error).toBe('La fecha de programación debe ser futura');
  });

  it('refuses templates that are not approved, not mapped, or of another WhatsApp account', async () => {
    const before = (await call('GET', '')).json().length;
    const pending = await call('POST', '', validBody({ template_id: fx.pending.id }));
    expect(pending.statusCode).toBe(400);
    expect(pending.json().error).toBe('La plantilla no está aprobada');
    const unmapped = await call('POST', '', validBody({ template_id: fx.unmapped.id }));
    expect(unmapped.statusCode).toBe(400);
    expect(unmapped.json().error).toBe('La plantilla tiene variables sin configurar: {{1}}');
    const elsewhere = await call('POST', '', validBody({ template_id: fx.elsewhere.id }));
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.json().error).toBe('La plantilla no pertenece a la cuenta de WhatsApp seleccionada');
    expect((await call('GET', '')).json().length).toBe(before);
  });

  it("refuses another user's Kommo account, WhatsApp account or template as not found", async () => {
    const kommo = await call('POST', '', validBody({ kommo_account_id: foreign.kommo.id }));
    expect(kommo.statusCode).toBe(404);
    expect(kommo.json().error).toBe('Cuenta Kommo no encontrada');
    const wa = await call('POST', '', validBody({ whatsapp_account_id: foreign.whatsapp.id }));
    expect(wa.statusCode).toBe(404);
    expect(wa.json().error).toBe('Cuenta de WhatsApp no encontrada');
    const template = await call('POST', '', validBody({ template_id: foreign.approved.id }));
    expect(template.statusCode).toBe(404);
    expect(template.json().error).toBe('Plantilla no encontrada');
  });
});

describe('ownership', () => {
  it("answers 404 for another user's campaign on every route, and changes nothing", async () => {
    const mine = await createDraft({ name: 'Solo mía' });
    const routes: [InjectOptions['method'], string, unknown?][] = [
      ['GET', `/${mine.id}`],
      ['PUT', `/${mine.id}`, { name: 'Robada' }],
      ['DELETE', `/${mine.id}`],
      ['POST', `/${mine.id}/start`, {}],
      ['POST', `/${mine.id}/pause`, {}],
      ['POST', `/${mine.id}/retry-failed`, {}],
      ['GET', `/${mine.id}/messages`],
    ];
    for (const [method, url, payload] of routes) {
      const res = await call(method, url, payload, other.headers);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('Campaña no encontrada');
    }
    expect((await call('GET', '', undefined, other.headers)).json()).toEqual([]);
    const still = (await call('GET', `/${mine.id}`)).json();
    expect(still).toMatchObject({ name: 'Solo mía', status: 'draft' });
  });

  it('answers 404 for an id that does not exist', async () => {
    expect((await call('GET', '/2147483647')).statusCode).toBe(404);
    expect((await call('POST', '/2147483647/start', {})).statusCode).toBe(404);
  });
});

describe('transitions', () => {
  it('starts a draft, pauses it, resumes it and deletes it once paused', async () => {
    const { id } = await createDraft();
    const started = await call('POST', `/${id}/start`, {});
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json()).toMatchObject({ id, status: 'sending' });
    expect(started.json().started_at).not.toBeNull();

    const paused = await call('POST', `/${id}/pause`, {});
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json()).toMatchObject({ id, status: 'paused' });

    const resumed = await call('POST', `/${id}/start`, {});
    expect(resumed.statusCode).toBe(200);
    expect(resumed.json().status).toBe('sending');
    await call('POST', `/${id}/pause`, {});

    const removed = await call('DELETE', `/${id}`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json().success).toBe(true);
    expect((await call('GET', `/${id}`)).statusCode).toBe(404);
  });

  it('starts a scheduled campaign before its time', async () => {
    const res = await call('POST', '', validBody({ scheduled_at: new Date(Date.now() + 86_400_000).toISOString() }));
    const { id } = res.json();
    const started = await call('POST', `/${id}/start`, {});
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json().status).toBe('sending');
    await call('POST', `/${id}/pause`, {});
  });

  it('answers 409 with a Spanish message for every transition the status does not allow', async () => {
    const { id } = await createDraft();
    const expectConflict = async (method: InjectOptions['method'], url: string, status: string) => {
      await setStatus(id, status as never);
      const res = await call(method, url, method === 'DELETE' ? undefined : {});
      expect(res.statusCode, `${method} ${url} from ${status}`).toBe(409);
      expect(res.json().error).toMatch(/[a-zá-ú]{3,}/i);
      expect(await statusOf(id)).toBe(status);
    };
    // Start only from draft, scheduled or paused.
    for (const s of ['sending', 'completed', 'cancelled']) await expectConflict('POST', `/${id}/start`, s);
    // Pause only from sending.
    for (const s of ['draft', 'scheduled', 'paused', 'completed', 'cancelled']) await expectConflict('POST', `/${id}/pause`, s);
    // Delete only from draft, paused, completed or cancelled.
    for (const s of ['scheduled', 'sending']) await expectConflict('DELETE', `/${id}`, s);
    // Editing a sending campaign is not allowed either.
    await expectConflict('PUT', `/${id}`, 'sending');

    for (const s of ['draft', 'completed', 'cancelled'] as const) {
      const c = await createDraft();
      await setStatus(c.id, s);
      expect((await call('DELETE', `/${c.id}`)).statusCode, `delete from ${s}`).toBe(200);
    }
  });
});

describe('audience and retry', () => {
  it('freezes the audience on the first start: one pending recipient per matching contact', async () => {
    const { id } = await createDraft();
    expect((await call('GET', `/${id}/messages`)).json().total).toBe(0);
    const started = (await call('POST', `/${id}/start`, {})).json();
    expect(started).toMatchObject({ status: 'sending', total_recipients: 2, pending_count: 2 });
    const page = (await call('GET', `/${id}/messages?status=pending`)).json();
    expect(page.total).toBe(2);
    expect(page.messages.map((m: { phone: string }) => m.phone).sort()).toEqual(['+5491155550001', '+5491155550002']);
    expect(page.messages.map((m: { contact_name: string }) => m.contact_name).sort()).toEqual(['Ana Pérez', 'Luis Gómez']);
    await call('POST', `/${id}/pause`, {});
  });

  it('retries failed and unknown recipients only, and refuses a campaign that never sent', async () => {
    const draft = await createDraft();
    const refused = await call('POST', `/${draft.id}/retry-failed`, {});
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toBe('No se pueden reintentar envíos de una campaña en estado Borrador');

    const { id } = await createDraft({ filters: undefined });
    await call('POST', `/${id}/start`, {});
    await call('POST', `/${id}/pause`, {});
    const rows = (await call('GET', `/${id}/messages`)).json().messages as { id: number }[];
    const when = new Date();
    // Settle the three recipients as the engine would: one read, one failed, one unknown.
    await rowsOf(t.ctx.db, sql`update campaign_recipients set status = 'read', sent_at = ${when}, delivered_at = ${when}, read_at = ${when} where id = ${rows[0]!.id}`);
    await rowsOf(t.ctx.db, sql`update campaign_recipients set status = 'failed', error_code = 131000, failed_at = ${when} where id = ${rows[1]!.id}`);
    await rowsOf(t.ctx.db, sql`update campaign_recipients set status = 'unknown' where id = ${rows[2]!.id}`);
    await rowsOf(t.ctx.db, sql`update campaigns set status = 'completed', pending_count = 0, messages_sent = 1, delivered_count = 1, read_count = 1, failed_count = 1, unknown_count = 1 where id = ${id}`);

    const retried = await call('POST', `/${id}/retry-failed`, {});
    expect(retried.statusCode, retried.body).toBe(200);
    // Unknown recipients are a separate, confirmed action (retry-unknown).
    expect(retried.json()).toMatchObject({ status: 'sending', failed_count: 0, unknown_count: 1, pending_count: 1, messages_sent: 1 });
    const unknown = await call('POST', `/${id}/retry-unknown`, { confirm: true });
    expect(unknown.statusCode, unknown.body).toBe(200);
    expect(unknown.json()).toMatchObject({ status: 'sending', failed_count: 0, unknown_count: 0, pending_count: 2, messages_sent: 1 });
    const pending = (await call('GET', `/${id}/messages?status=pending`)).json().messages.map((m: { id: number }) => m.id).sort();
    expect(pending).toEqual([rows[1]!.id, rows[2]!.id].sort());
    expect((await call('GET', `/${id}/messages?status=read`)).json().messages[0].id).toBe(rows[0]!.id);
    await call('POST', `/${id}/pause`, {});
  });
});

describe('update', () => {
  it('edits a draft and schedules it, re-counting the audience when the filters change', async () => {
    const { id } = await createDraft();
    const renamed = await call('PUT', `/${id}`, { name: 'Nuevo nombre', filters: { searchQuery: 'Ana', tags: [], tagOperator: 'OR', customFieldFilters: {} } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Nuevo nombre', total_recipients: 1, status: 'draft' });
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await call('PUT', `/${id}`, { scheduled_at: at });
    expect(scheduled.json()).toMatchObject({ status: 'scheduled', scheduled_at: at });
    const past = await call('PUT', `/${id}`, { scheduled_at: '2001-01-01T00:00:00Z' });
    expect(past.statusCode).toBe(400);
    const badTemplate = await call('PUT', `/${id}`, { template_id: fx.pending.id });
    expect(badTemplate.statusCode).toBe(400);
    expect(badTemplate.json().error).toBe('La plantilla no está aprobada');
  });
});

describe('messages', () => {
  it('pages recipients and filters them by status, with phone, error and times', async () => {
    const { id } = await createDraft();
    const sentAt = new Date('2025-03-01T10:00:00Z');
    const rows = [
      { status: 'read', phone: '+5491155550001', sentAt, deliveredAt: sentAt, readAt: sentAt },
      { status: 'delivered', phone: '+5491155550002', sentAt, deliveredAt: sentAt },
      { status: 'failed', phone: '+5491155550003', errorCode: 131026, errorMessage: 'Mensaje no entregable', failedAt: sentAt },
      { status: 'skipped', phone: null, errorMessage: 'Teléfono inválido' },
      { status: 'pending', phone: '+5491155550005' },
    ] as const;
    await t.ctx.db.insert(campaignRecipients).values(
      rows.map((r, i) => ({ ...r, campaignId: id, userId: owner.userId, phoneKey: r.phone ? r.phone.slice(1) : null, contactId: null, attempts: i })),
    );

    const first = await call('GET', `/${id}/messages?limit=2`);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ total: 5, page: 1, limit: 2 });
    expect(first.json().messages).toHaveLength(2);
    const last = await call('GET', `/${id}/messages?limit=2&page=3`);
    expect(last.json().messages).toHaveLength(1);
    const beyond = await call('GET', `/${id}/messages?limit=2&page=9`);
    expect(beyond.json()).toMatchObject({ total: 5, messages: [] });
    const seen = [...first.json().messages, ...(await call('GET', `/${id}/messages?limit=2&page=2`)).json().messages, ...last.json().messages];
    expect(new Set(seen.map((m: { id: number }) => m.id)).size).toBe(5);

    const failed = await call('GET', `/${id}/messages?status=failed`);
    expect(failed.json().total).toBe(1);
    expect(failed.json().messages[0]).toMatchObject({
      phone: '+5491155550003',
      status: 'failed',
      error_code: 131026,
      error_message: 'Mensaje no entregable',
      failed_at: sentAt.toISOString(),
      sent_at: null,
    });
    const read = (await call('GET', `/${id}/messages?status=read`)).json().messages[0];
    expect(read).toMatchObject({ phone: '+5491155550001', sent_at: sentAt.toISOString(), delivered_at: sentAt.toISOString(), read_at: sentAt.toISOString() });
    const skipped = (await call('GET', `/${id}/messages?status=skipped`)).json().messages[0];
    expect(skipped).toMatchObject({ phone: null, error_message: 'Teléfono inválido' });
  });
});
