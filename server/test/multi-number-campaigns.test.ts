import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Campaign } from '@masivo/contract/campaigns';
import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { rowsOf } from '../src/db/sql';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { insertContact, insertMappings, insertTemplate, insertWhatsAppAccount, phoneOf } from './helpers/campaign-fixtures';
import { APP_SECRET, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';
import { postWebhook } from './helpers/webhook';
import { accountUpdateStop } from '../src/engine/campaigns/account-update';
import { restrictAfterSendRefusal, SEND_RESTRICTION_MS } from '../src/services/whatsapp-accounts/number-restriction';

/**
 * Several numbers in one campaign: three numbers of one WABA (so one portfolio),
 * each with its approved copy of `promo`; 60 contacts on the first number's Kommo account.
 */
const WABA = '2701';
const A = { phoneNumberId: '1701', wabaId: WABA, token: 'tok-a', rate: 20 };
const B = { phoneNumberId: '1702', wabaId: WABA, token: 'tok-b', rate: 20 };
const C = { phoneNumberId: '1703', wabaId: WABA, token: 'tok-c', rate: 40 };

let bed: EngineBed;
let ids: { a: number; b: number; c: number };
const db = () => bed.t.ctx.db;
beforeAll(async () => {
  bed = await startEngineBed({ numbers: [A, B, C], contacts: 60 });
  ids = { a: bed.worlds[0].whatsappAccountId, b: bed.worlds[1].whatsappAccountId, c: bed.worlds[2].whatsappAccountId };
});
afterAll(() => bed?.close());
beforeEach(async () => {
  bed.sim.reset();
  await db().execute(sql`update whatsapp_accounts set quality_rating = 'GREEN', is_active = true`);
});

const post = (url: string, payload: unknown) => bed.t.app.inject({ method: 'POST', url, headers: bed.headers, payload: payload as never });
const numberOf = new Map<string, string>();

async function createMulti(name: string, numbers = [ids.a, ids.b, ids.c], filters: Record<string, unknown> = {}): Promise<Campaign> {
  const w = bed.worlds[0];
  const res = await post('/api/campaigns', {
    name,
    kommo_account_id: w.kommoAccountId,
    whatsapp_account_id: w.whatsappAccountId,
    whatsapp_account_ids: numbers,
    template_id: w.templateId,
    filters,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** Each recipient's number (the row's) by phone key, and the simulator's sender of each phone. */
async function assignment(campaignId: number) {
  const rows = await rowsOf<{ phone_key: string; phone: string; account: number; status: string }>(
    db(),
    sql`select phone_key, phone, whatsapp_account_id as account, status from campaign_recipients
        where campaign_id = ${campaignId} and status <> 'skipped' order by id`,
  );
  return rows.map((r) => ({ ...r, account: Number(r.account) }));
}

/** Messages the simulator got from one number. */
const sentFrom = (phoneNumberId: string, campaignId: number) =>
  bed.sim.messages().filter((m) => m.phoneNumberId === phoneNumberId && (m.bizOpaque ?? '').startsWith(`masivo:${campaignId}:`)).length;

function phoneNumberIdOf(accountId: number) {
  return accountId === ids.a ? A.phoneNumberId : accountId === ids.b ? B.phoneNumberId : C.phoneNumberId;
}

/** Every person the simulator got a message of this campaign for came from exactly the number of its row, once. */
function expectSentFromTheirNumber(campaignId: number, rows: Array<{ phone: string; account: number }>) {
  // A late request of an earlier campaign (its answer timed out on a busy machine) is not this campaign's.
  const sent = bed.sim.messages().filter((m) => (m.bizOpaque ?? '').startsWith(`masivo:${campaignId}:`));
  const senders = new Map<string, Set<string>>();
  for (const m of sent) {
    const set = senders.get(m.to) ?? new Set();
    set.add(m.phoneNumberId);
    senders.set(m.to, set);
  }
  for (const r of rows) {
    const to = r.phone.replace(/\D/g, '');
    const from = senders.get(to);
    if (!from) continue;
    expect([...from], `${to}`).toEqual([phoneNumberIdOf(r.account)]);
  }
  const times = new Map<string, number>();
  for (const m of sent) times.set(`${m.to}|${m.phoneNumberId}`, (times.get(`${m.to}|${m.phoneNumberId}`) ?? 0) + 1);
  expect([...times.values()].filter((n) => n > 1)).toEqual([]);
}

describe('creating a campaign on several numbers', () => {
  it('takes numbers of one portfolio that hold an approved copy of the template, and says them back', async () => {
    const c = await createMulti('Varios números');
    expect(c.whatsapp_account_id).toBe(ids.a);
    expect(c.whatsapp_account_ids).toEqual([ids.a, ids.b, ids.c]);
    const pre = await post('/api/campaigns/preflight', {
      kommo_account_id: bed.worlds[0].kommoAccountId,
      whatsapp_account_id: ids.a,
      whatsapp_account_ids: [ids.a, ids.b, ids.c],
      template_id: bed.worlds[0].templateId,
    });
    expect(pre.statusCode, pre.body).toBe(200);
    // Each number paced at its own rate: the campaign can reach their sum.
    expect(pre.json().eta.rate_per_second).toBe(80);
    expect(pre.json().template_problem).toBeNull();
  });

  it('refuses a number of another portfolio and a number without the template approved, in the pre-flight too', async () => {
    const other = await insertWhatsAppAccount(db(), bed.t.ctx.secrets, bed.userId, { phoneNumberId: '1799', wabaId: '2799', token: 'tok-x' });
    await insertTemplate(db(), bed.userId, other);
    const bare = await insertWhatsAppAccount(db(), bed.t.ctx.secrets, bed.userId, { phoneNumberId: '1798', wabaId: WABA, token: 'tok-y' });
    await insertTemplate(db(), bed.userId, bare, { status: 'pending' });
    const w = bed.worlds[0];
    const base = { name: 'x', kommo_account_id: w.kommoAccountId, whatsapp_account_id: ids.a, template_id: w.templateId };
    const foreign = await post('/api/campaigns', { ...base, whatsapp_account_ids: [ids.a, other] });
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error).toContain('otro portafolio');
    const unapproved = await post('/api/campaigns', { ...base, whatsapp_account_ids: [ids.a, bare] });
    expect(unapproved.statusCode).toBe(400);
    expect(unapproved.json().error).toContain('no tiene aprobada la plantilla');
    const pre = await post('/api/campaigns/preflight', { ...base, whatsapp_account_ids: [ids.a, bare] });
    expect(pre.statusCode).toBe(200);
    expect(pre.json().template_problem).toContain('no tiene aprobada la plantilla');
    const twice = await post('/api/campaigns', { ...base, whatsapp_account_ids: [ids.a, ids.a] });
    expect(twice.statusCode).toBe(400);
  });
});

describe('a split test on several numbers', () => {
  it("checks every variant's template on every number, at creation and in the pre-flight, naming the number and the template", async () => {
    const w = bed.worlds[0];
    // promo_b is approved on A and B; C has only a copy still pending.
    const variantB = await insertTemplate(db(), bed.userId, ids.a, { name: 'promo_b' });
    await insertMappings(db(), bed.userId, variantB);
    await insertTemplate(db(), bed.userId, ids.b, { name: 'promo_b' });
    const pendingOnC = await insertTemplate(db(), bed.userId, ids.c, { name: 'promo_b', status: 'pending' });
    const [{ name: nameC }] = await rowsOf<{ name: string }>(db(), sql`select name from whatsapp_accounts where id = ${ids.c}`);
    const body = {
      name: 'A/B en varios números',
      kommo_account_id: w.kommoAccountId,
      whatsapp_account_id: ids.a,
      whatsapp_account_ids: [ids.a, ids.b, ids.c],
      template_id: w.templateId,
      variants: [{ template_id: w.templateId }, { template_id: variantB }],
      ab_test: { share: 0.2, metric: 'read', wait_seconds: 3600, no_winner: 'stop' },
    };
    const expected = `Variante B: El número «${nameC}» no tiene aprobada la plantilla «promo_b» (es)`;
    const refused = await post('/api/campaigns', body);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe(expected);
    const pre = await post('/api/campaigns/preflight', body);
    expect(pre.statusCode, pre.body).toBe(200);
    expect(pre.json().template_problem).toBe(expected);
    // Nothing was written by the refused creation.
    const [{ n }] = await rowsOf<{ n: number }>(db(), sql`select count(*)::int as n from campaigns where name = ${body.name}`);
    expect(n).toBe(0);
    // On two numbers that hold every variant, or once C's copy is approved, it is accepted.
    const two = await post('/api/campaigns', { ...body, whatsapp_account_ids: [ids.a, ids.b] });
    expect(two.statusCode, two.body).toBe(201);
    await db().execute(sql`update templates set status = 'approved' where id = ${pendingOnC}`);
    const pre2 = await post('/api/campaigns/preflight', body);
    expect(pre2.json().template_problem).toBeNull();
    const created = await post('/api/campaigns', body);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().whatsapp_account_ids).toEqual([ids.a, ids.b, ids.c]);
    // An edit that adds a number without the variant's copy is refused the same way.
    const bare = await insertWhatsAppAccount(db(), bed.t.ctx.secrets, bed.userId, { phoneNumberId: '1797', wabaId: WABA, token: 'tok-z' });
    await insertTemplate(db(), bed.userId, bare);
    const edit = await bed.t.app.inject({
      method: 'PUT',
      url: `/api/campaigns/${two.json().id}`,
      headers: bed.headers,
      payload: { whatsapp_account_ids: [ids.a, ids.b, bare] },
    });
    expect(edit.statusCode).toBe(400);
    expect(edit.json().error).toMatch(/^Variante B: El número «.+» no tiene aprobada la plantilla «promo_b» \(es\)$/);
  });
});

describe('a member scoped to some numbers', () => {
  it('cannot name a number outside the scope in the list: 404, as for a number that does not exist', async () => {
    const w = bed.worlds[0];
    const scoped = await bed.t.addMember(bed.userId, 'campaign_manager', { whatsapp_account_ids: [ids.a], kommo_account_ids: [w.kommoAccountId] });
    const body = { name: 'Fuera', kommo_account_id: w.kommoAccountId, whatsapp_account_id: ids.a, template_id: w.templateId, filters: {} };
    const res = await bed.t.app.inject({ method: 'POST', url: '/api/campaigns', headers: scoped.headers, payload: { ...body, whatsapp_account_ids: [ids.a, ids.b] } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('Cuenta de WhatsApp no encontrada');
    const own = await bed.t.app.inject({ method: 'POST', url: '/api/campaigns', headers: scoped.headers, payload: { ...body, whatsapp_account_ids: [ids.a] } });
    expect(own.statusCode, own.body).toBe(201);
  });
});

describe('a sticky number per person', () => {
  let first: Campaign;

  it('sends each person from the number they last wrote to or were sent from, the rest by weighted hash', async () => {
    const keys = await rowsOf<{ kommo_id: number; phone_key: string }>(
      db(),
      sql`select kommo_id, phone_key from contacts where account_id = ${bed.worlds[0].kommoAccountId} order by kommo_id`,
    );
    const keyOf = (i: number) => keys.find((k) => Number(k.kommo_id) === i)!.phone_key;
    // Person 1 wrote to C yesterday; persons 10, 20 … 60 (tag vip) were sent an earlier campaign from B.
    await db().execute(sql`insert into inbound_messages (user_id, whatsapp_account_id, wamid, from_phone_key, type, body, sent_at)
      values (${bed.userId}, ${ids.c}, 'wamid.in-1', ${keyOf(1)}, 'text', 'Hola', now() - interval '1 day')`);
    const earlier = await bed.launch(1, { tags: ['vip'] }, 'Anterior desde B');
    await waitFor(() => bed.campaign(earlier.id), (c) => c.status === 'completed', 20_000, 'earlier campaign');
    bed.sim.reset();

    first = await createMulti('Sticky', [ids.a, ids.b, ids.c]);
    const started = await startCampaign(bed.t.ctx, bed.userId, first.id);
    expect(started.status).toBe('sending');
    const done = await waitFor(() => bed.campaign(first.id), (c) => c.status === 'completed' && c.pending_count === 0, 20_000, 'multi completed');
    // On a busy machine some answers time out: those people are `unknown`, never sent again.
    expect(done.messages_sent + done.unknown_count + done.failed_count).toBe(60);

    const rows = await assignment(first.id);
    const byKey = new Map(rows.map((r) => [r.phone_key, r.account]));
    expect(byKey.get(keyOf(1))).toBe(ids.c);
    for (const i of [10, 20, 30, 40, 50, 60]) expect(byKey.get(keyOf(i)), `person ${i}`).toBe(ids.b);
    // The rest by rate: C (40/s) about half, A and B (20/s) about a quarter each.
    const per = { a: 0, b: 0, c: 0 };
    for (const r of rows) per[r.account === ids.a ? 'a' : r.account === ids.b ? 'b' : 'c']++;
    expect(per.a + per.b + per.c).toBe(60);
    for (const n of Object.values(per)) expect(n).toBeGreaterThan(3);
    expect(per.c).toBeGreaterThan(per.a);
    expectSentFromTheirNumber(first.id, rows);
    for (const r of rows) numberOf.set(r.phone_key, String(r.account));

    // The campaign's screen: each number's progress.
    expect(done.numbers!.map((n) => [n.whatsapp_account_id, n.assigned, n.waiting])).toEqual([
      [ids.a, per.a, 0],
      [ids.b, per.b, 0],
      [ids.c, per.c, 0],
    ]);
    // Each recipient says its number.
    const page = await bed.t.app.inject({ method: 'GET', url: `/api/campaigns/${first.id}/messages?limit=200`, headers: bed.headers });
    const messages = page.json().messages as Array<{ phone: string; whatsapp_account_id: number }>;
    expect(new Set(messages.map((m) => m.whatsapp_account_id))).toEqual(new Set([ids.a, ids.b, ids.c]));
  });

  it('keeps every person on the same number in a follow-up, even when the weights changed', async () => {
    // Were people placed again by hash, the new weights would move most of them.
    await db().execute(sql`update whatsapp_accounts set rate_per_second = 200 where id = ${ids.a}`);
    try {
      const res = await post(`/api/campaigns/${first.id}/follow-up`, { group: 'not_replied' });
      expect(res.statusCode, res.body).toBe(201);
      const follow = res.json() as Campaign;
      expect(follow.whatsapp_account_ids).toEqual([ids.a, ids.b, ids.c]);
      bed.sim.reset();
      await startCampaign(bed.t.ctx, bed.userId, follow.id);
      await waitFor(() => bed.campaign(follow.id), (c) => c.status === 'completed', 20_000, 'follow-up completed');
      const rows = await assignment(follow.id);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) expect(String(r.account), r.phone_key).toBe(numberOf.get(r.phone_key));
      expectSentFromTheirNumber(follow.id, rows);
    } finally {
      await db().execute(sql`update whatsapp_accounts set rate_per_second = 20 where id = ${ids.a}`);
    }
  });
});

describe('a number that turns red mid-campaign', () => {
  it('takes no sends: its people wait and are shown, the other numbers go on, nobody changes number', async () => {
    // Slow lanes, so B is still sending when it turns red.
    await db().execute(sql`update whatsapp_accounts set rate_per_second = 4 where id in (${ids.a}, ${ids.b}, ${ids.c})`);
    try {
      // People not tied to a number yet: the other Kommo account's contacts.
      const w = bed.worlds[1];
      const res = await post('/api/campaigns', {
        name: 'Rojo a mitad',
        kommo_account_id: w.kommoAccountId,
        whatsapp_account_id: ids.b,
        whatsapp_account_ids: [ids.b, ids.a, ids.c],
        template_id: w.templateId,
        filters: {},
      });
      expect(res.statusCode, res.body).toBe(201);
      const c = res.json() as Campaign;
      await startCampaign(bed.t.ctx, bed.userId, c.id);
      await waitFor(() => Promise.resolve(sentFrom(B.phoneNumberId, c.id)), (n) => n >= 2, 10_000, 'B sending');
      // B turns red (as the number's check stores Meta's quality_rating).
      await db().execute(sql`update whatsapp_accounts set quality_rating = 'RED' where id = ${ids.b}`);
      await new Promise((r) => setTimeout(r, 1_500));
      const bAtRed = sentFrom(B.phoneNumberId, c.id);
      const rows = await assignment(c.id);
      const onB = rows.filter((r) => r.account === ids.b).length;
      const onOthers = rows.length - onB;
      // A and C finish their people; B's wait.
      await waitFor(
        () => rowsOf<{ n: number }>(db(), sql`select count(*)::int as n from campaign_recipients
          where campaign_id = ${c.id} and whatsapp_account_id <> ${ids.b} and status in ('pending', 'sending')`),
        (r) => Number(r[0].n) === 0,
        30_000,
        'A and C done',
      );
      const waiting = await bed.campaign(c.id);
      expect(waiting.status).toBe('sending');
      expect(waiting.pause_reason).toBeNull();
      const b = waiting.numbers!.find((n) => n.whatsapp_account_id === ids.b)!;
      expect(b.blocked_reason).toBe('Calidad baja (RED)');
      expect(b.waiting).toBe(b.pending);
      expect(b.waiting).toBeGreaterThan(0);
      expect(b.assigned).toBe(onB);
      expect(b.sent + b.waiting).toBeLessThanOrEqual(onB);
      expect(sentFrom(B.phoneNumberId, c.id)).toBe(bAtRed);
      const others = waiting.numbers!.filter((n) => n.whatsapp_account_id !== ids.b);
      expect(others.reduce((s, n) => s + n.assigned, 0)).toBe(onOthers);
      expect(others.every((n) => n.pending === 0 && n.waiting === 0 && n.blocked_reason === null)).toBe(true);
      // Back to green: B's people go out from B, and nobody was sent from two numbers.
      await db().execute(sql`update whatsapp_accounts set quality_rating = 'GREEN' where id = ${ids.b}`);
      await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 30_000, 'completed after green');
      const after = await assignment(c.id);
      expect(after.map((r) => r.account)).toEqual(rows.map((r) => r.account));
      expectSentFromTheirNumber(c.id, after);
    } finally {
      await db().execute(sql`update whatsapp_accounts set rate_per_second = 20 where id in (${ids.a}, ${ids.b})`);
      await db().execute(sql`update whatsapp_accounts set rate_per_second = 40 where id = ${ids.c}`);
    }
  });
});

describe('a number Meta restricted', () => {
  const accountUpdate = (waba: string, value: Record<string, unknown>) => ({
    object: 'whatsapp_business_account',
    entry: [{ id: waba, time: Math.floor(Date.now() / 1000), changes: [{ field: 'account_update', value }] }],
  });
  const restriction = (until: number) => ({
    event: 'ACCOUNT_RESTRICTION',
    restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: until }],
  });
  const restrictedOf = async (id: number) =>
    (
      await rowsOf<{ at: string | null; until: string | null; reason: string | null }>(
        db(),
        sql`select restricted_at::text as at, extract(epoch from restricted_until)::bigint::text as until, restricted_reason as reason from whatsapp_accounts where id = ${id}`,
      )
    )[0]!;

  it("takes no new people; its people wait, shown with the reason, while the other numbers go on; it sends again when the restriction ends", async () => {
    // C on a WABA of its own in the same portfolio, so Meta's WABA restriction names C only.
    await db().execute(sql`update whatsapp_accounts set business_portfolio_id = 'P-2701' where id in (${ids.a}, ${ids.b}, ${ids.c})`);
    await db().execute(sql`update whatsapp_accounts set business_account_id = '2702' where id = ${ids.c}`);
    try {
      // 30 people no earlier test reached; the first five wrote to C: they stay on C whatever its state.
      const w = bed.worlds[2];
      for (let i = 1; i <= 30; i++) await insertContact(db(), bed.userId, w.kommoAccountId, { kommoId: 5000 + i, phone: phoneOf(5000 + i), tags: ['restringido'] });
      const keys = await rowsOf<{ phone_key: string }>(
        db(),
        sql`select phone_key from contacts where account_id = ${w.kommoAccountId} and kommo_id > 5000 order by kommo_id limit 5`,
      );
      for (const [i, k] of keys.entries()) {
        await db().execute(sql`insert into inbound_messages (user_id, whatsapp_account_id, wamid, from_phone_key, type, body, sent_at)
          values (${bed.userId}, ${ids.c}, ${'wamid.restricted-' + i}, ${k.phone_key}, 'text', 'Hola', now() - interval '1 hour')`);
      }
      // Meta restricts C's WABA (its documented account_update), for a day.
      const until = Math.floor(Date.now() / 1000) + 86_400;
      expect((await postWebhook(bed.t.app, APP_SECRET, accountUpdate('2702', restriction(until)))).statusCode).toBe(200);
      await waitFor(() => restrictedOf(ids.c), (r) => r.at !== null, 10_000, 'C restricted');
      expect(await restrictedOf(ids.c)).toMatchObject({ until: String(until), reason: expect.stringMatching(/^Meta restringió los mensajes iniciados por la empresa/) });
      expect((await restrictedOf(ids.a)).at).toBeNull();
      // The number's own card says so: its account view carries the restriction, the others none.
      const listed = (await bed.t.app.inject({ method: 'GET', url: '/api/whatsapp-accounts', headers: bed.headers })).json() as WhatsAppAccount[];
      expect(listed.find((a) => a.id === ids.c)!.restriction).toEqual({
        since: expect.any(String),
        until: new Date(until * 1000).toISOString(),
        reason: expect.stringMatching(/^Meta restringió los mensajes iniciados por la empresa/),
      });
      expect(listed.find((a) => a.id === ids.a)!.restriction).toBeNull();

      const res = await post('/api/campaigns', {
        name: 'Con un número restringido',
        kommo_account_id: w.kommoAccountId,
        whatsapp_account_id: ids.a,
        whatsapp_account_ids: [ids.a, ids.b, ids.c],
        template_id: bed.worlds[0].templateId,
        filters: { tags: ['restringido'] },
      });
      expect(res.statusCode, res.body).toBe(201);
      const c = res.json() as Campaign;
      await startCampaign(bed.t.ctx, bed.userId, c.id);
      // Nobody new goes to C: only the five tied to it.
      const rows = await assignment(c.id);
      const onC = rows.filter((r) => r.account === ids.c);
      expect(new Set(onC.map((r) => r.phone_key))).toEqual(new Set(keys.map((k) => k.phone_key)));
      await waitFor(
        () => rowsOf<{ n: number }>(db(), sql`select count(*)::int as n from campaign_recipients
          where campaign_id = ${c.id} and whatsapp_account_id <> ${ids.c} and status in ('pending', 'sending')`),
        (r) => Number(r[0].n) === 0,
        30_000,
        'A and B done',
      );
      // The campaign goes on (not paused); the screen says how many wait on C and why.
      const waiting = await bed.campaign(c.id);
      expect(waiting.status).toBe('sending');
      expect(waiting.pause_reason).toBeNull();
      const numberC = waiting.numbers!.find((n) => n.whatsapp_account_id === ids.c)!;
      expect(numberC).toMatchObject({ assigned: 5, pending: 5, waiting: 5, sent: 0 });
      const end = new Date(until * 1000).toISOString();
      expect(numberC.blocked_reason).toBe(
        `Restringido por Meta: Meta restringió los mensajes iniciados por la empresa en esta cuenta de WhatsApp Business (se vuelve a intentar el ${end.slice(8, 10)}/${end.slice(5, 7)}/${end.slice(0, 4)} ${end.slice(11, 16)} UTC)`,
      );
      expect(waiting.numbers!.filter((n) => n.whatsapp_account_id !== ids.c).every((n) => n.blocked_reason === null && n.waiting === 0)).toBe(true);
      expect(sentFrom(C.phoneNumberId, c.id)).toBe(0);

      // The restriction ends (its expiration passes): C's people go out from C.
      await db().execute(sql`update whatsapp_accounts set business_account_id = ${WABA}, restricted_until = now() where id = ${ids.c}`);
      await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 30_000, 'completed after the restriction');
      expect(sentFrom(C.phoneNumberId, c.id)).toBe(5);
      expectSentFromTheirNumber(c.id, await assignment(c.id));
    } finally {
      await db().execute(sql`update whatsapp_accounts set business_portfolio_id = null, business_account_id = ${WABA},
        restricted_at = null, restricted_until = null, restricted_reason = null where id in (${ids.a}, ${ids.b}, ${ids.c})`);
    }
  });

  it("lifts a WABA's restriction when Meta reinstates it, and reads the restriction's end", async () => {
    await db().execute(sql`update whatsapp_accounts set business_account_id = '2703' where id = ${ids.b}`);
    try {
      expect((await postWebhook(bed.t.app, APP_SECRET, accountUpdate('2703', { event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'DISABLE' } }))).statusCode).toBe(200);
      await waitFor(() => restrictedOf(ids.b), (r) => r.at !== null, 10_000, 'B restricted');
      // A ban has no end: until Meta reinstates.
      expect(await restrictedOf(ids.b)).toMatchObject({ until: null, reason: expect.stringMatching(/^Meta suspendió la cuenta/) });
      expect((await postWebhook(bed.t.app, APP_SECRET, accountUpdate('2703', { event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'REINSTATE' } }))).statusCode).toBe(200);
      await waitFor(() => restrictedOf(ids.b), (r) => r.at === null, 10_000, 'B reinstated');
    } finally {
      await db().execute(sql`update whatsapp_accounts set business_account_id = ${WABA}, restricted_at = null, restricted_until = null, restricted_reason = null where id = ${ids.b}`);
    }
    expect(accountUpdateStop(restriction(1_900_000_000))?.end?.toISOString()).toBe(new Date(1_900_000_000_000).toISOString());
    expect(accountUpdateStop({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: '2026-12-01T00:00:00Z' }] })?.end?.toISOString()).toBe(
      '2026-12-01T00:00:00.000Z',
    );
    // Not a restriction that stops templates: nothing stops, so no end either.
    expect(accountUpdateStop({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION' }] })).toBeNull();
  });

  it('a send Meta refuses with 131031 restricts that number mid-campaign: its people wait, the other number finishes, nobody is sent from two numbers', async () => {
    // Slow lanes (so B has people left when its first send is refused), two numbers of one portfolio.
    await db().execute(sql`update whatsapp_accounts set rate_per_second = 4, business_portfolio_id = 'P-2701' where id in (${ids.a}, ${ids.b})`);
    try {
      // 24 people no earlier test reached, tied to no number: the weighted hash shares them between A and B.
      const w = bed.worlds[2];
      for (let i = 1; i <= 24; i++) await insertContact(db(), bed.userId, w.kommoAccountId, { kommoId: 7000 + i, phone: phoneOf(7000 + i), tags: ['rechazo-131031'] });
      const res = await post('/api/campaigns', {
        name: 'Número rechazado por Meta',
        kommo_account_id: w.kommoAccountId,
        whatsapp_account_id: ids.a,
        whatsapp_account_ids: [ids.a, ids.b],
        template_id: bed.worlds[0].templateId,
        filters: { tags: ['rechazo-131031'] },
      });
      expect(res.statusCode, res.body).toBe(201);
      const c = res.json() as Campaign;
      // Meta refuses B's next send: account locked (131031), its documented Graph error.
      bed.sim.injectFault({ kind: 'code', code: 131031, phoneNumberId: B.phoneNumberId, count: 1 });
      await startCampaign(bed.t.ctx, bed.userId, c.id);
      const rows = await assignment(c.id);
      const onB = rows.filter((r) => r.account === ids.b).length;
      const onA = rows.length - onB;
      expect(rows).toHaveLength(24);
      expect(onB).toBeGreaterThan(1);
      expect(onA).toBeGreaterThan(0);

      // B is restricted for an hour, with the send's reason.
      await waitFor(() => restrictedOf(ids.b), (r) => r.at !== null, 10_000, 'B restricted by the refusal');
      const restricted = (
        await rowsOf<{ reason: string; hours: string }>(
          db(),
          sql`select restricted_reason as reason, round(extract(epoch from restricted_until - restricted_at) / 3600.0, 2)::text as hours
              from whatsapp_accounts where id = ${ids.b}`,
        )
      )[0]!;
      expect(restricted.reason).toBe('Meta bloqueó o restringió la cuenta de WhatsApp Business. (código 131031)');
      expect(Number(restricted.hours)).toBeCloseTo(SEND_RESTRICTION_MS / 3_600_000, 1);
      expect((await restrictedOf(ids.a)).at).toBeNull();

      // A sends all its people; B's wait on B, none failed.
      await waitFor(
        () => rowsOf<{ n: number }>(db(), sql`select count(*)::int as n from campaign_recipients
          where campaign_id = ${c.id} and whatsapp_account_id = ${ids.a} and status in ('pending', 'sending')`),
        (r) => Number(r[0].n) === 0,
        30_000,
        'A done',
      );
      const bSentWhileRestricted = sentFrom(B.phoneNumberId, c.id);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(sentFrom(B.phoneNumberId, c.id)).toBe(bSentWhileRestricted);
      expect(sentFrom(A.phoneNumberId, c.id)).toBe(onA);
      const byStatus = await rowsOf<{ account: number; status: string; n: number }>(
        db(),
        sql`select whatsapp_account_id as account, status, count(*)::int as n from campaign_recipients
            where campaign_id = ${c.id} group by 1, 2`,
      );
      expect(byStatus.filter((r) => r.status === 'failed')).toEqual([]);
      const bPending = byStatus.filter((r) => Number(r.account) === ids.b && r.status === 'pending').reduce((s, r) => s + Number(r.n), 0);
      expect(bPending).toBe(onB - bSentWhileRestricted);
      expect(bPending).toBeGreaterThan(0);
      const waiting = await bed.campaign(c.id);
      expect(waiting.status).toBe('sending');
      expect(waiting.pause_reason).toBeNull();
      const numberB = waiting.numbers!.find((n) => n.whatsapp_account_id === ids.b)!;
      expect(numberB).toMatchObject({ assigned: onB, pending: bPending, waiting: bPending });
      expect(numberB.blocked_reason).toMatch(/^Restringido por Meta: Meta bloqueó o restringió la cuenta de WhatsApp Business\. \(código 131031\) \(se vuelve a intentar el /);
      expect(waiting.numbers!.find((n) => n.whatsapp_account_id === ids.a)).toMatchObject({ assigned: onA, pending: 0, waiting: 0, blocked_reason: null });

      // The hour passes: B's people go out from B, each once, and nobody from two numbers.
      await db().execute(sql`update whatsapp_accounts set restricted_until = now() where id = ${ids.b}`);
      await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 30_000, 'completed after the restriction');
      const after = await assignment(c.id);
      expect(after.map((r) => r.account)).toEqual(rows.map((r) => r.account));
      expect(after.filter((r) => r.status === 'failed')).toEqual([]);
      expect(sentFrom(B.phoneNumberId, c.id)).toBe(onB);
      expect(sentFrom(A.phoneNumberId, c.id)).toBe(onA);
      expectSentFromTheirNumber(c.id, after);
    } finally {
      await db().execute(sql`update whatsapp_accounts set rate_per_second = 20, business_portfolio_id = null,
        restricted_at = null, restricted_until = null, restricted_reason = null where id in (${ids.a}, ${ids.b})`);
    }
  });

  it('a send Meta refuses as restricted (131031, 131048) keeps the number out for an hour; other refusals do not', async () => {
    const now = new Date('2026-11-28T12:00:00Z');
    try {
      expect(await restrictAfterSendRefusal(db(), ids.a, 190, 'token', now)).toBe(false);
      expect((await restrictedOf(ids.a)).at).toBeNull();
      expect(await restrictAfterSendRefusal(db(), ids.a, 131048, 'Meta limitó los envíos por la calidad del número (posible spam).', now)).toBe(true);
      expect(await restrictedOf(ids.a)).toMatchObject({ until: String((now.getTime() + SEND_RESTRICTION_MS) / 1000), reason: expect.stringMatching(/posible spam/) });
    } finally {
      await db().execute(sql`update whatsapp_accounts set restricted_at = null, restricted_until = null, restricted_reason = null where id = ${ids.a}`);
    }
  });
});
