import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { expireApprovals } from '../src/services/campaigns/campaign-approvals';
import { createTestApp, type TestApp } from './helpers/app';
import { insertContacts, seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

/**
 * Two-person approval: who asks, who may decide, what happens on approve, reject, edit and
 * expiry, the organisation's thresholds, and the audience that grows between the approval and
 * the freeze. The engine is not running (createTestApp builds the API only): "nothing sent"
 * means no recipient row was even frozen, and a start's outcome is the status it leaves.
 */
let t: TestApp;
type Member = Awaited<ReturnType<TestApp['signUp']>>;
let owner: Member;
let editor: Member;
let manager: Member;
let admin: Member;
let stranger: Member;
let world: CampaignWorld;
let nextKommoId = 11;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp();
  editor = await t.addMember(owner.userId, 'editor');
  manager = await t.addMember(owner.userId, 'campaign_manager');
  admin = await t.addMember(owner.userId, 'admin');
  stranger = await t.signUp();
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, { number: { phoneNumberId: '8801', wabaId: '8802', token: 'tok' }, contacts: 10 });
});
afterAll(() => t?.close());

const api = (who: Member, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  t.app.inject({ method, url: `/api/campaigns${url}`, headers: who.headers, ...(payload ? { payload } : {}) });

async function setMode(mode: 'off' | 'recipients' | 'cost' | 'always', min: { recipients?: number; cost?: number } = {}) {
  await rowsOf(
    t.ctx.db,
    sql`update organizations set approval_mode = ${mode}, approval_min_recipients = ${min.recipients ?? null},
          approval_min_cost_usd = ${min.cost ?? null} where id = ${owner.userId}`,
  );
}

async function create(who: Member, over: Record<string, unknown> = {}): Promise<number> {
  const res = await api(who, 'POST', '', {
    name: 'Promo aprobación',
    kommo_account_id: world.kommoAccountId,
    whatsapp_account_id: world.whatsappAccountId,
    template_id: world.templateId,
    ...over,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const campaign = async (id: number) => (await api(owner, 'GET', `/${id}`)).json();
const frozenRows = async (id: number) =>
  Number((await rowsOf<{ n: number }>(t.ctx.db, sql`select count(*)::int as n from campaign_recipients where campaign_id = ${id}`))[0]!.n);
const actions = async (id: number) =>
  (
    await rowsOf<{ action: string; actor_user_id: number | null }>(
      t.ctx.db,
      // The approval's own entries; the campaign's other ones (create, edit…) are the activity log's tests.
      sql`select action, actor_user_id from activity_log
           where target_type = 'campaign' and target_id = ${String(id)}
             and (action like 'campaign.approv%' or action = 'campaign.reject')
           order by id`,
    )
  ).map((r) => r.action);

async function pendingByEditor(): Promise<number> {
  const id = await create(editor);
  const res = await api(editor, 'POST', `/${id}/start`);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json().status).toBe('pending_approval');
  return id;
}

describe("an Editor's start", () => {
  it('goes to pending_approval whatever the setting, and sends nothing', async () => {
    await setMode('off');
    const id = await pendingByEditor();
    const c = await campaign(id);
    expect(c.status).toBe('pending_approval');
    expect(c.started_at).toBeNull();
    expect(c.messages_sent).toBe(0);
    expect(await frozenRows(id)).toBe(0);
    expect(c.approval).toMatchObject({ status: 'pending', kind: 'start', requested_by: editor.userId, attempted: 10, created_by: editor.userId });
    expect(c.approval.requested_by_name).toBeTruthy();
    expect(new Date(c.approval.expires_at).getTime() - new Date(c.approval.requested_at).getTime()).toBe(72 * 3600_000);
    expect(await actions(id)).toEqual(['campaign.approval_requested']);
  });

  it('may not be approved by an Editor, nor by the creator or the requester', async () => {
    const id = await pendingByEditor();
    expect((await api(editor, 'POST', `/${id}/approve`, {})).statusCode).toBe(403);

    // A manager's own campaign under 'always': the manager asked and created it.
    await setMode('always');
    const own = await create(manager);
    expect((await api(manager, 'POST', `/${own}/start`)).json().status).toBe('pending_approval');
    const refused = await api(manager, 'POST', `/${own}/approve`, {});
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatch(/creaste/);
    expect((await api(manager, 'POST', `/${own}/reject`, { reason: 'no' })).statusCode).toBe(403);
    // The founder created the campaigns of before members (created_by null).
    await rowsOf(t.ctx.db, sql`update campaigns set created_by = null where id = ${own}`);
    expect((await api(owner, 'POST', `/${own}/approve`, {})).json().error).toMatch(/creaste/);
    expect((await campaign(own)).status).toBe('pending_approval');
    await setMode('off');
  });

  it('is approved by a campaign manager (with a note) and sends', async () => {
    const id = await pendingByEditor();
    const res = await api(manager, 'POST', `/${id}/approve`, { note: 'Revisado' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('sending');
    expect(res.json().approval).toMatchObject({ status: 'approved', note: 'Revisado' });
    expect(await frozenRows(id)).toBe(10);
    expect(await actions(id)).toEqual(['campaign.approval_requested', 'campaign.approve']);
    // Decided once: a second approval finds nothing pending.
    expect((await api(admin, 'POST', `/${id}/approve`, {})).statusCode).toBe(409);
  });

  it('is rejected only with a reason, and returns to draft', async () => {
    const id = await pendingByEditor();
    const missing = await api(manager, 'POST', `/${id}/reject`, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatch(/motivo del rechazo es requerido/);
    const blank = await api(manager, 'POST', `/${id}/reject`, { reason: '   ' });
    expect(blank.statusCode).toBe(400);
    const res = await api(manager, 'POST', `/${id}/reject`, { reason: 'El texto tiene un error' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('draft');
    expect(res.json().approval).toMatchObject({ status: 'rejected', note: 'El texto tiene un error' });
    expect(await frozenRows(id)).toBe(0);
    expect(await actions(id)).toEqual(['campaign.approval_requested', 'campaign.reject']);
  });

  it('is voided by an edit: the campaign returns to draft', async () => {
    const id = await pendingByEditor();
    const res = await api(editor, 'PUT', `/${id}`, { name: 'Otro nombre' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('draft');
    expect(res.json().approval.status).toBe('voided');
    expect(await actions(id)).toEqual(['campaign.approval_requested', 'campaign.approval_voided']);
    expect((await api(manager, 'POST', `/${id}/approve`, {})).statusCode).toBe(409);
  });

  it('is voided at approval time when the mapping changed since the request (409)', async () => {
    const id = await pendingByEditor();
    // A change below the API (e.g. another process): the approval compares the snapshot.
    await rowsOf(t.ctx.db, sql`update template_variable_mappings set default_value = 'cliente' where template_id = ${world.templateId}`);
    const res = await api(manager, 'POST', `/${id}/approve`, {});
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/cambió desde que se solicitó/);
    expect((await campaign(id)).status).toBe('draft');
    expect(await frozenRows(id)).toBe(0);
    expect(await actions(id)).toContain('campaign.approval_voided');
  });

  it('expires after 72 h: the sweep returns it to draft', async () => {
    const id = await pendingByEditor();
    expect(await expireApprovals(t.ctx.db)).not.toContain(id);
    await rowsOf(
      t.ctx.db,
      sql`update campaign_approvals set requested_at = now() - interval '73 hours', expires_at = now() - interval '1 hour'
          where campaign_id = ${id}`,
    );
    expect(await expireApprovals(t.ctx.db)).toContain(id);
    const c = await campaign(id);
    expect(c.status).toBe('draft');
    expect(c.approval.status).toBe('expired');
    expect(await actions(id)).toEqual(['campaign.approval_requested', 'campaign.approval_expired']);
    // Swept once.
    expect(await expireApprovals(t.ctx.db)).not.toContain(id);
  });

  it('of a schedule asks too; approved, the campaign is scheduled at its time', async () => {
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const id = await create(editor, { scheduled_at: at });
    const c = await campaign(id);
    expect(c.status).toBe('pending_approval');
    expect(c.approval).toMatchObject({ kind: 'schedule', status: 'pending' });
    const res = await api(admin, 'POST', `/${id}/approve`, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('scheduled');
    expect(await frozenRows(id)).toBe(0);
    // An Editor's edit of the approved schedule asks again.
    const edited = await api(editor, 'PUT', `/${id}`, { description: 'cambio' });
    expect(edited.json().status).toBe('pending_approval');
  });
});

describe("the organisation's setting", () => {
  it('recipients: above N the owner asks, at or below N the owner sends', async () => {
    await setMode('recipients', { recipients: 5 });
    const above = await create(owner);
    expect((await api(owner, 'POST', `/${above}/start`)).json().status).toBe('pending_approval');
    await setMode('recipients', { recipients: 10 });
    const below = await create(owner);
    expect((await api(owner, 'POST', `/${below}/start`)).json().status).toBe('sending');
    // The manager (neither creator nor requester) approves the owner's.
    expect((await api(manager, 'POST', `/${above}/approve`, {})).json().status).toBe('sending');
  });

  it('cost: above US$ X asks, below sends', async () => {
    await setMode('cost', { cost: 0.01 });
    const above = await create(manager);
    const asked = (await api(manager, 'POST', `/${above}/start`)).json();
    expect(asked.status).toBe('pending_approval');
    expect(asked.approval.cost_usd).toBeGreaterThan(0.01);
    await setMode('cost', { cost: 100_000 });
    const below = await create(manager);
    expect((await api(manager, 'POST', `/${below}/start`)).json().status).toBe('sending');
  });

  it("always: every first start asks; 'off' sends", async () => {
    await setMode('always');
    const id = await create(admin);
    expect((await api(admin, 'POST', `/${id}/start`)).json().status).toBe('pending_approval');
    await setMode('off');
    const free = await create(admin);
    expect((await api(admin, 'POST', `/${free}/start`)).json().status).toBe('sending');
  });
});

describe('the audience between the approval and the freeze', () => {
  it('more than 5 % above the approved attempted: back to pending, nothing sent; approved again, it sends', async () => {
    await setMode('off');
    const id = await pendingByEditor();
    await insertContacts(t.ctx.db, owner.userId, world.kommoAccountId, 2, nextKommoId + 1000);
    nextKommoId += 2;
    const res = await api(manager, 'POST', `/${id}/approve`, {});
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().status).toBe('pending_approval');
    expect(res.json().started_at).toBeNull();
    expect(res.json().messages_sent).toBe(0);
    expect(res.json().approval).toMatchObject({ status: 'pending', attempted: 12, requested_by: editor.userId });
    expect(await actions(id)).toEqual(['campaign.approval_requested', 'campaign.approve', 'campaign.approval_requested']);
    const again = await api(admin, 'POST', `/${id}/approve`, {});
    expect(again.json().status).toBe('sending');
    expect(await frozenRows(id)).toBe(12);
  });

  it('within 5 %: the approved start sends', async () => {
    // 12 + 0 more: the same audience; one contact fewer is no reason to ask again either.
    const id = await pendingByEditor();
    await rowsOf(t.ctx.db, sql`update contacts set phone = null, phone_raw = null where user_id = ${owner.userId} and kommo_id = 1`);
    expect((await api(manager, 'POST', `/${id}/approve`, {})).json().status).toBe('sending');
  });
});

describe('tenancy', () => {
  it("another organisation's campaign is a 404 to approve or reject", async () => {
    const id = await pendingByEditor();
    expect((await api(stranger, 'POST', `/${id}/approve`, {})).statusCode).toBe(404);
    expect((await api(stranger, 'POST', `/${id}/reject`, { reason: 'x' })).statusCode).toBe(404);
    expect((await campaign(id)).status).toBe('pending_approval');
  });
});
