import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { sweepActivity } from '../src/services/activity/activity-queries';
import { completeFinished, pauseForTemplates, pauseWithReason } from '../src/services/campaigns/campaign-transitions';
import { seedCampaignWorld } from './helpers/campaign-fixtures';
import { parseCsv } from './helpers/csv';
import { NUMBER, accountPayload, startWhatsAppTestBed, type WhatsAppTestBed } from './helpers/whatsapp-fixtures';

/**
 * The activity log end to end: what members and the engine leave in it (names and roles as
 * they were), refusals, the page's filters and pages, the CSV (itself an entry), append-only
 * below and above the API, the retention sweep, one organisation never seeing another's, and
 * tokens never stored.
 */
let bed: WhatsAppTestBed;
type User = { headers: { authorization: string }; userId: number };
let owner: User;
let manager: User;
let viewer: User;
let stranger: User;
let world: Awaited<ReturnType<typeof seedCampaignWorld>>;

const api = (method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, user: User, payload?: object) =>
  bed.t.app.inject({ method, url, headers: { ...user.headers, 'user-agent': 'prueba/1.0' }, ...(payload ? { payload } : {}) });

interface Entry {
  id: string;
  actor_user_id: number | null;
  actor_name: string;
  actor_role: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  target_name: string | null;
  changes: { before?: Record<string, unknown>; after?: Record<string, unknown> } | null;
  detail: Record<string, unknown> | null;
  outcome: string;
  reason: string | null;
  ip: string | null;
  user_agent: string | null;
}

async function page(query: string, user = owner): Promise<{ items: Entry[]; next_cursor: string | null }> {
  const res = await api('GET', `/api/activity${query}`, user);
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const rename = (userId: number, first: string, last: string) =>
  rowsOf(bed.t.ctx.db, sql`update users set first_name = ${first}, last_name = ${last} where id = ${userId}`);

beforeAll(async () => {
  bed = await startWhatsAppTestBed();
  owner = await bed.t.signUp();
  stranger = await bed.t.signUp();
  manager = await bed.t.addMember(owner.userId, 'campaign_manager');
  viewer = await bed.t.addMember(owner.userId, 'viewer');
  await rename(manager.userId, 'Marta', 'Gestora');
  world = await seedCampaignWorld(bed.t.ctx.db, bed.t.ctx.secrets, owner.userId, {
    number: { phoneNumberId: '9001', wabaId: '9901', token: 'seed-token-9001' },
    contacts: 3,
  });
});
afterAll(() => bed.close());

async function createCampaign(user: User, name: string) {
  const res = await api('POST', '/api/campaigns', user, {
    name,
    kommo_account_id: world.kommoAccountId,
    whatsapp_account_id: world.whatsappAccountId,
    template_id: world.templateId,
    message_type: 'template',
    filters: { searchQuery: '', tags: [], tagOperator: 'OR', customFieldFilters: {} },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: number; name: string };
}

describe('a campaign’s life', () => {
  it('create → start → pause → resume, each with the name and role of the moment', async () => {
    const campaign = await createCampaign(manager, 'Promo otoño');
    for (const step of ['start', 'pause', 'start'] as const) {
      const res = await api('POST', `/api/campaigns/${campaign.id}/${step}`, manager);
      expect(res.statusCode, res.body).toBe(200);
    }
    const timeline = await api('GET', `/api/campaigns/${campaign.id}/activity`, viewer);
    expect(timeline.statusCode, timeline.body).toBe(200);
    // A Lector sees the campaign's history, but not where members connect from.
    expect((timeline.json().items as Entry[]).every((e) => e.ip === null && e.user_agent === null)).toBe(true);
    const items = ((await api('GET', `/api/campaigns/${campaign.id}/activity`, owner)).json().items as Entry[]).reverse();
    expect(items.map((e) => e.action)).toEqual(['campaign.create', 'campaign.start', 'campaign.pause', 'campaign.resume']);
    for (const e of items) {
      expect(e).toMatchObject({ actor_user_id: manager.userId, actor_name: 'Marta Gestora', actor_role: 'campaign_manager', outcome: 'done' });
      expect(e).toMatchObject({ target_type: 'campaign', target_id: String(campaign.id), target_name: 'Promo otoño', user_agent: 'prueba/1.0' });
      expect(e.ip).toBeTruthy();
    }
    expect(items[1]!.changes).toEqual({ before: { status: 'draft' }, after: { status: 'sending' } });
    expect(items[2]!.changes).toEqual({ before: { status: 'sending' }, after: { status: 'paused' } });

    // Renamed later: the old entries keep the name they were written with.
    await rename(manager.userId, 'Marta', 'Renombrada');
    await api('POST', `/api/campaigns/${campaign.id}/pause`, manager);
    const after = (await api('GET', `/api/campaigns/${campaign.id}/activity`, owner)).json().items as Entry[];
    expect(after[0]!.actor_name).toBe('Marta Renombrada');
    expect(after.slice(1).every((e) => e.actor_name === 'Marta Gestora')).toBe(true);
  });

  it('the engine’s transitions are "sistema" entries in the campaign’s organisation', async () => {
    const campaign = await createCampaign(owner, 'Promo motor');
    expect((await api('POST', `/api/campaigns/${campaign.id}/start`, owner)).statusCode).toBe(200);
    await pauseForTemplates(bed.t.ctx.db, [world.templateId], 'Meta pausó la plantilla por baja calidad');
    // Already paused: a more precise reason from Meta is no second transition.
    await pauseForTemplates(bed.t.ctx.db, [world.templateId], 'Meta pausó la plantilla');
    const items = (await api('GET', `/api/campaigns/${campaign.id}/activity`, owner)).json().items as Entry[];
    expect(items.map((e) => e.action)).toEqual(['campaign.paused_by_meta', 'campaign.start', 'campaign.create']);
    expect(items[0]).toMatchObject({
      actor_user_id: null,
      actor_name: 'sistema',
      actor_role: null,
      target_name: 'Promo motor',
      detail: { reason: 'Meta pausó la plantilla por baja calidad' },
      changes: { before: { status: 'sending' }, after: { status: 'paused' } },
    });

    // Everyone left to send to is gone: the scheduler completes it.
    await rowsOf(bed.t.ctx.db, sql`update campaigns set status = 'sending', pending_count = 0 where id = ${campaign.id}`);
    expect(await completeFinished(bed.t.ctx.db)).toContain(campaign.id);
    expect(await pauseWithReason(bed.t.ctx.db, { campaignIds: [campaign.id] }, 'no aplica')).toEqual([]);
    const last = (await api('GET', `/api/campaigns/${campaign.id}/activity?limit=1`, owner)).json().items[0] as Entry;
    expect(last).toMatchObject({ action: 'campaign.completed', actor_name: 'sistema', changes: { after: { status: 'completed' } } });
  });

  it('another organisation’s campaign timeline is a 404', async () => {
    const campaign = await createCampaign(owner, 'Privada');
    expect((await api('GET', `/api/campaigns/${campaign.id}/activity`, stranger)).statusCode).toBe(404);
  });
});

describe('refusals and exports', () => {
  it('a Lector’s export is refused and recorded as denied, with the reason', async () => {
    const res = await api('POST', `/api/contacts/${world.kommoAccountId}/export`, viewer, {});
    expect(res.statusCode).toBe(403);
    const denied = await page(`?user_id=${viewer.userId}&outcome=denied`);
    expect(denied.items[0]).toMatchObject({ action: 'contacts.export', actor_role: 'viewer', outcome: 'denied' });
    expect(denied.items[0]!.reason).toMatch(/contacts\.export/);
  });

  it('an export is recorded when its stream ends, with the filter and the row count', async () => {
    const res = await api('POST', `/api/contacts/${world.kommoAccountId}/export`, manager, { searchQuery: '' });
    expect(res.statusCode, res.body).toBe(200);
    const { items } = await page(`?action=contacts.export&outcome=done`);
    expect(items[0]).toMatchObject({ actor_user_id: manager.userId, detail: { rows: 3, complete: true } });
    expect(items[0]!.detail!.filter).toBeTruthy();
  });

  it('the CSV lists the filtered entries and is itself an entry', async () => {
    const res = await api('GET', `/api/activity.csv?format=csv_es&action=campaign.create`, owner);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/csv/);
    const rows = parseCsv(res.body.replace(/^\uFEFF/, ''), ';');
    expect(rows[0]![0]).toBe('Fecha (UTC)');
    const data = rows.slice(1).filter((r) => r.length > 1);
    expect(data.length).toBe(3);
    expect(data.every((r) => r[3] === 'Creó la campaña')).toBe(true);
    const { items } = await page('?action=activity.export');
    expect(items[0]).toMatchObject({ actor_user_id: owner.userId, detail: { rows: 3, complete: true, format: 'csv_es', filter: { action: 'campaign.create' } } });
  });

  it('the log is for managers: a Gestor de campañas gets 403 on the page and the CSV', async () => {
    expect((await api('GET', '/api/activity', manager)).statusCode).toBe(403);
    expect((await api('GET', '/api/activity.csv', manager)).statusCode).toBe(403);
  });
});

describe('the page', () => {
  it('filters by member, action, target and dates, and pages with a cursor', async () => {
    const byManager = await page(`?user_id=${manager.userId}&limit=200`);
    expect(byManager.items.length).toBeGreaterThan(4);
    expect(byManager.items.every((e) => e.actor_user_id === manager.userId)).toBe(true);

    const creates = await page('?action=campaign.create&target_type=campaign');
    expect(creates.items.length).toBe(3);
    const one = await page(`?target_type=campaign&target_id=${creates.items[0]!.target_id}`);
    expect(one.items.every((e) => e.target_id === creates.items[0]!.target_id)).toBe(true);

    expect((await page('?from=2000-01-01&to=2000-12-31')).items).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await page(`?from=${today}&to=${today}&action=campaign.create`)).items.length).toBe(3);

    const all = (await page('?limit=200')).items.map((e) => e.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const p: { items: Entry[]; next_cursor: string | null } = await page(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(p.items.length).toBeLessThanOrEqual(3);
      seen.push(...p.items.map((e) => e.id));
      cursor = p.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it('refuses bad filters in Spanish', async () => {
    for (const q of ['?limit=201', '?limit=0', '?from=ayer', '?action=DROP%20TABLE', '?cursor=abc', '?otro=1']) {
      const res = await api('GET', `/api/activity${q}`, owner);
      expect(res.statusCode, q).toBe(400);
    }
    expect((await api('GET', '/api/activity?limit=201', owner)).json().error).toMatch(/límite/i);
  });

  it('never shows another organisation’s entries', async () => {
    await api('PUT', '/api/settings/frequency-cap', stranger, { cap: { max_messages: 2, days: 7 } });
    const theirs = await page('?limit=200', stranger);
    const ours = await page('?limit=200', owner);
    expect(theirs.items.length).toBeGreaterThan(0);
    const ourIds = new Set(ours.items.map((e) => e.id));
    expect(theirs.items.some((e) => ourIds.has(e.id))).toBe(false);
    expect(ours.items.some((e) => e.actor_user_id === stranger.userId)).toBe(false);
  });
});

describe('sign-in', () => {
  it('records a sign-in, and a failed one in the organisations of that e-mail only', async () => {
    const [me] = await rowsOf<{ email: string }>(bed.t.ctx.db, sql`select email from users where id = ${owner.userId}`);
    const ok = await bed.t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: me!.email, password: 'secreto123' } });
    expect(ok.statusCode).toBe(200);
    const bad = await bed.t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: me!.email, password: 'incorrecta1' } });
    expect(bad.statusCode).toBe(401);
    const nobody = await bed.t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'nadie@example.com', password: 'incorrecta1' } });
    expect(nobody.statusCode).toBe(401);
    const { items } = await page('?target_type=user');
    expect(items.slice(0, 2).map((e) => [e.action, e.outcome])).toEqual([
      ['auth.login_failed', 'denied'],
      ['auth.login', 'done'],
    ]);
    const [stray] = await rowsOf<{ n: number }>(bed.t.ctx.db, sql`select count(*)::int as n from activity_log where action = 'auth.login_failed'`);
    expect(Number(stray!.n)).toBe(1);
  });
});

describe('secrets', () => {
  it('connecting and editing a WhatsApp number never stores its access token', async () => {
    const created = await api('POST', '/api/whatsapp-accounts', owner, accountPayload());
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as number;
    const edited = await api('PUT', `/api/whatsapp-accounts/${id}`, owner, { name: 'Ventas norte', access_token: NUMBER.token });
    expect(edited.statusCode, edited.body).toBe(200);
    const { items } = await page('?target_type=whatsapp_account');
    expect(items.map((e) => e.action)).toEqual(['whatsapp_account.update', 'whatsapp_account.create']);
    expect(items[0]!.changes).toEqual({ before: { name: 'Cuenta Principal' }, after: { name: 'Ventas norte' } });
    const raw = await rowsOf<Record<string, unknown>>(bed.t.ctx.db, sql`select * from activity_log`);
    const text = JSON.stringify(raw);
    expect(text).not.toContain(NUMBER.token);
    expect(text).not.toContain('seed-token-9001');
    expect(text).not.toContain('secreto123');
  });
});

describe('append-only', () => {
  it('an UPDATE of activity_log fails, whoever runs it', async () => {
    await expect(rowsOf(bed.t.ctx.db, sql`update activity_log set actor_name = 'otro'`)).rejects.toThrow();
    // Clearing the actor together with anything else is refused too.
    await expect(rowsOf(bed.t.ctx.db, sql`update activity_log set actor_user_id = null, actor_name = 'otro' where actor_user_id is not null`)).rejects.toThrow();
  });

  it('a removed user’s entries stay, with the name they had', async () => {
    const { db } = bed.t.ctx;
    const gone = await bed.t.signUp('se-va@example.com');
    const login = await bed.t.app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: 'se-va@example.com', password: 'secreto123' } });
    expect(login.statusCode).toBe(200);
    const [{ n }] = await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from activity_log where actor_user_id = ${gone.userId}`);
    expect(n).toBeGreaterThan(0);
    await rowsOf(db, sql`delete from users where id = ${gone.userId}`);
    const rows = await rowsOf<{ actor_user_id: number | null; actor_name: string }>(
      db,
      sql`select actor_user_id, actor_name from activity_log where action = 'auth.login' and actor_user_id is null and organization_id = ${gone.userId}`,
    );
    expect(rows.length).toBeGreaterThan(0);
  });

  it('no route edits or deletes entries', () => {
    const writes = bed.t.app.routePermissions.filter((r) => r.url.startsWith('/api/activity') && r.method !== 'GET');
    expect(writes).toEqual([]);
    const timeline = bed.t.app.routePermissions.filter((r) => r.url.endsWith('/activity'));
    expect(timeline.every((r) => r.method === 'GET')).toBe(true);
  });

  it('the retention sweep deletes only entries past the organisation’s retention, of that organisation', async () => {
    const { db } = bed.t.ctx;
    const old = sql`now() - interval '400 days'`;
    for (const org of [owner.userId, stranger.userId])
      await rowsOf(db, sql`insert into activity_log (organization_id, at, actor_name, action) values (${org}, ${old}, 'sistema', 'campaign.completed'),
                                                                                         (${org}, now() - interval '100 days', 'sistema', 'campaign.completed')`);
    // The stranger's organisation keeps two years.
    await rowsOf(db, sql`update organizations set activity_retention_days = 730 where id = ${stranger.userId}`);
    const count = async (org: number) =>
      Number((await rowsOf<{ n: number }>(db, sql`select count(*)::int as n from activity_log where organization_id = ${org}`))[0]!.n);
    const [ours, theirs] = [await count(owner.userId), await count(stranger.userId)];
    expect(await sweepActivity(db, { batch: 1 })).toBe(1);
    expect(await count(owner.userId)).toBe(ours - 1);
    expect(await count(stranger.userId)).toBe(theirs);
    const left = await rowsOf(db, sql`select 1 from activity_log where at < now() - interval '365 days' and organization_id = ${owner.userId}`);
    expect(left).toEqual([]);
  });
});

describe('labels', () => {
  it('every action the server records has its Spanish label', async () => {
    const { readFileSync, readdirSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { ACTIVITY_ACTION_LABEL } = await import('@masivo/contract/activity');
    const root = join(__dirname, '../src');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const f of readdirSync(dir)) {
        const p = join(dir, f);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts')) files.push(p);
      }
    };
    walk(root);
    const recorded = new Set<string>();
    for (const f of files) for (const m of readFileSync(f, 'utf8').matchAll(/action: '([a-z_]+\.[a-z_]+)'/g)) recorded.add(m[1]!);
    const missing = [...recorded].filter((a) => !(a in ACTIVITY_ACTION_LABEL));
    expect(recorded.size).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });
});
