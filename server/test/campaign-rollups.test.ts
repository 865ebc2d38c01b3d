import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../src/db/sql';
import { JobRunner } from '../src/jobs/index';
import { campaignRollups } from '../src/engine/campaign-rollups';
import { applyDeliveryFacts } from '../src/services/campaigns/recipient-transitions';
import { campaignStats } from '../src/services/campaigns/campaign-stats';
import { ROLLUP_JOB } from '../src/db/rollup-mark';
import { EXACT_BELOW, foldChangedCampaigns, foldCampaign } from '../src/services/campaigns/campaign-rollups';
import { dashboardActivity } from '../src/services/dashboard/activity';
import { createTestApp, type TestApp } from './helpers/app';
import { insertKommoAccount, insertWhatsAppAccount } from './helpers/campaign-fixtures';
import { campaignStatsFromRecipients, dashboardActivityFromRecipients } from './helpers/charts-from-recipients';
import { foldRollups } from './helpers/rollups';
import { attemptedCountriesSql, deliveredGroupsSql } from '../src/services/campaigns/campaign-cost-groups';
import { campaignCost } from '../src/services/campaigns/campaign-cost';
import { campaignMarketing } from '../src/services/campaigns/campaign-marketing';
import { loadCampaignRow } from '../src/services/campaigns/campaign-queries';

/**
 * The charts' rollups (0051), folded by the `campaign-rollups` job off the send path: after
 * folds aborted at random points and passes stopped between campaigns, with recipients moving
 * between passes, every bucket equals a recount from the raw rows, and the charts answered from
 * the rollups equal the answers computed from the recipients as before.
 */

let t: TestApp;
const owners: number[] = [];
const numbers = new Map<number, number[]>();
const campaignsOf = new Map<number, number[]>();

/** A small deterministic generator, so a failure can be replayed. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(20261128);
const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
const CODES = [131026, 131049, 131050, null] as const;
const PRICING = ['marketing', 'marketing_lite', 'utility', null] as const;
const ROUTES = ['messages', 'marketing_messages', null] as const;

/** A random instant of the last 35 days (some fall before the 30-day window). */
const someInstant = () => new Date(Date.now() - Math.floor(rand() * 35 * 86_400_000)).toISOString();

async function insertCampaign(userId: number, account: number | null): Promise<number> {
  const [row] = await rowsOf<{ id: number }>(
    t.ctx.db,
    sql`insert into campaigns (user_id, name, status, filters, whatsapp_account_id, started_at)
        values (${userId}, 'Rollup', 'completed', '{}'::jsonb, ${account}, now()) returning id`,
  );
  return Number(row!.id);
}

let phoneSeq = 0;
/** `n` recipients in random states, as the writers leave them; the campaign's row is bumped as they bump it. */
async function addRecipients(campaignId: number, userId: number, n: number): Promise<void> {
  const values = [];
  for (let i = 0; i < n; i++) {
    const key = `5491177${String(++phoneSeq).padStart(6, '0')}`;
    const r = rand();
    const sent = someInstant();
    const later = (ms: number) => new Date(Date.parse(sent) + Math.floor(rand() * ms)).toISOString();
    const row =
      r < 0.1
        ? { status: 'skipped', attempts: 0, sent: null, delivered: null, read: null, failed: null, code: null }
        : r < 0.2
          ? { status: 'failed', attempts: 1, sent: null, delivered: null, read: null, failed: sent, code: pick(CODES) }
          : r < 0.35
            ? { status: 'pending', attempts: 0, sent: null, delivered: null, read: null, failed: null, code: null }
            : r < 0.5
              ? { status: 'sent', attempts: 1, sent, delivered: null, read: null, failed: null, code: null }
              : r < 0.7
                ? { status: 'delivered', attempts: 1, sent, delivered: later(60_000), read: null, failed: null, code: null }
                : { status: 'read', attempts: 1, sent, delivered: rand() < 0.2 ? null : later(60_000), read: later(6 * 3_600_000), failed: null, code: null };
    values.push(
      sql`(${campaignId}, ${userId}, ${'+' + key}, ${key}, ${row.status}, ${row.attempts}, ${row.sent}::timestamptz, ${row.delivered}::timestamptz,
        ${row.read}::timestamptz, ${row.failed}::timestamptz, ${rand() < 0.1 && row.sent ? later(3_600_000) : null}::timestamptz,
        ${row.code}::int, ${row.code === null && row.status === 'failed' ? null : row.status === 'failed' ? `motivo ${row.code}` : null},
        ${row.sent ? pick(PRICING) : null}, ${row.sent ? 'regular' : null}, ${row.sent ? 'PMP' : null},
        ${row.sent ? pick(ROUTES) : null}, ${pick([0, 1, null])}::smallint, ${pick([null, null, 'AR', 'CO'])})`,
    );
  }
  await t.ctx.db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, attempts,
      sent_at, delivered_at, read_at, failed_at, replied_at, error_code, error_message,
      pricing_category, pricing_type, pricing_model, route, variant, country) values ${sql.join(values, sql`, `)}`);
  await t.ctx.db.execute(sql`update campaigns set total_recipients = total_recipients + ${n}, updated_at = clock_timestamp() where id = ${campaignId}`);
}

/**
 * Recipients move between passes: some through the real writer (delivery facts, which bump the
 * campaign in the same statement), some by hand with the campaign bumped as the writers do.
 */
async function moveRecipients(): Promise<void> {
  const rows = await rowsOf<{ id: number; campaign_id: number; status: string }>(
    t.ctx.db,
    sql`select id::int as id, campaign_id, status from campaign_recipients order by random() limit 40`,
  );
  const facts = rows
    .filter((r) => ['pending', 'sent', 'delivered'].includes(r.status))
    .map((r) => {
      const at = new Date(Date.now() - Math.floor(rand() * 3 * 86_400_000)).toISOString();
      const k = rand();
      return k < 0.4
        ? { recipientId: Number(r.id), sentAt: at }
        : k < 0.7
          ? { recipientId: Number(r.id), deliveredAt: at }
          : k < 0.9
            ? { recipientId: Number(r.id), readAt: at }
            : { recipientId: Number(r.id), failed: { at, code: pick(CODES), message: 'movido' } };
    });
  await applyDeliveryFacts(t.ctx.db, facts);
  // Replies (their writer bumps only replied_count) and a few new recipients.
  const [reply] = rows.filter((r) => r.status !== 'pending' && r.status !== 'skipped');
  if (reply) {
    const [first] = await rowsOf<{ replied: boolean }>(t.ctx.db, sql`select replied_at is not null as replied from campaign_recipients where id = ${reply.id}`);
    if (!first!.replied) {
      await t.ctx.db.execute(sql`update campaign_recipients set replied_at = now() where id = ${reply.id}`);
      await t.ctx.db.execute(sql`update campaigns set replied_count = replied_count + 1 where id = ${reply.campaign_id}`);
    }
  }
  const owner = pick(owners);
  await addRecipients(pick(campaignsOf.get(owner)!), owner, 1 + Math.floor(rand() * 5));
}

interface Recount {
  funnel: [number, number, number, number, number];
  minutes: Map<string, [number, number, number]>;
  quarters: Map<string, [number, number, number, number]>;
  failures: Map<string, number>;
  /** 0053: the cost's groups and the estimate's countries (as sorted JSON lines), the messages per route. */
  costs: string[];
  countries: string[];
  routes: [number, number];
}

const lines = (rows: object[]) => rows.map((r) => JSON.stringify(Object.entries(r).map(([k, v]) => [k, v === null ? null : String(v)]))).sort();

const floorTo = (iso: string, ms: number) => new Date(Math.floor(Date.parse(iso) / ms) * ms).toISOString();

/** An independent recount, in JavaScript, from every raw row of the campaign. */
async function recount(campaignId: number): Promise<Recount> {
  const rows = await rowsOf<{
    status: string;
    attempts: number;
    sent: string | null;
    delivered: string | null;
    read: string | null;
    failed: string | null;
    replied: boolean;
    code: number | null;
  }>(
    t.ctx.db,
    sql`select status, attempts, to_json(sent_at)#>>'{}' as sent, to_json(delivered_at)#>>'{}' as delivered, to_json(read_at)#>>'{}' as read,
          to_json(failed_at)#>>'{}' as failed, replied_at is not null as replied, error_code as code
        from campaign_recipients where campaign_id = ${campaignId}`,
  );
  const [userRow] = await rowsOf<{ user_id: number }>(t.ctx.db, sql`select user_id from campaigns where id = ${campaignId}`);
  const userId = Number(userRow!.user_id);
  const [routes] = await rowsOf<{ mm: number; cloud: number }>(
    t.ctx.db,
    sql`select count(*) filter (where route = 'marketing_messages')::int as mm,
          count(*) filter (where route is distinct from 'marketing_messages' and sent_at is not null)::int as cloud
        from campaign_recipients where campaign_id = ${campaignId}`,
  );
  const out: Recount = {
    funnel: [0, 0, 0, 0, 0],
    minutes: new Map(),
    quarters: new Map(),
    failures: new Map(),
    costs: lines(await rowsOf(t.ctx.db, deliveredGroupsSql(campaignId, userId))),
    countries: lines(await rowsOf(t.ctx.db, attemptedCountriesSql(campaignId, userId))),
    routes: [Number(routes!.mm), Number(routes!.cloud)],
  };
  const bump = <K, V extends number[]>(m: Map<K, V>, k: K, zero: V, add: V) => {
    const v = m.get(k) ?? zero;
    m.set(k, v.map((x, i) => x + add[i]!) as V);
  };
  for (const r of rows) {
    if (!(r.status === 'skipped' && Number(r.attempts) === 0)) out.funnel[0]++;
    if (r.sent ?? r.delivered ?? r.read) out.funnel[1]++;
    if (r.delivered ?? r.read) out.funnel[2]++;
    if (r.read) out.funnel[3]++;
    if (r.replied) out.funnel[4]++;
    if (r.sent) bump(out.minutes, floorTo(r.sent, 60_000), [0, 0, 0], [1, 0, 0]);
    if (r.delivered) bump(out.minutes, floorTo(r.delivered, 60_000), [0, 0, 0], [0, 1, 0]);
    if (r.read) bump(out.minutes, floorTo(r.read, 60_000), [0, 0, 0], [0, 0, 1]);
    if (r.sent) bump(out.quarters, floorTo(r.sent, 900_000), [0, 0, 0, 0], [1, r.delivered || r.read ? 1 : 0, r.read ? 1 : 0, 0]);
    if (r.status === 'failed' && r.failed) bump(out.quarters, floorTo(r.failed, 900_000), [0, 0, 0, 0], [0, 0, 0, 1]);
    if (r.status === 'failed') out.failures.set(String(r.code), (out.failures.get(String(r.code)) ?? 0) + 1);
  }
  return out;
}

/** Every bucket of the campaign's rollups. */
async function rollupOf(campaignId: number): Promise<Recount | null> {
  const [f] = await rowsOf<{ attempted: number; sent: number; delivered: number; read: number; replied: number; mm: number; cloud: number }>(
    t.ctx.db,
    sql`select attempted, sent, delivered, read, replied, routed_marketing as mm, routed_cloud as cloud from campaign_rollups where campaign_id = ${campaignId}`,
  );
  if (!f) return null;
  const iso = (c: string) => sql.raw(`to_char(${c} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
  const minutes = await rowsOf<{ at: string; sent: number; delivered: number; read: number }>(
    t.ctx.db,
    sql`select ${iso('minute')} as at, sent, delivered, read from campaign_rollup_minutes where campaign_id = ${campaignId}`,
  );
  const quarters = await rowsOf<{ at: string; sent: number; delivered: number; read: number; failed: number }>(
    t.ctx.db,
    sql`select ${iso('quarter')} as at, sent, delivered, read, failed from campaign_rollup_quarters where campaign_id = ${campaignId}`,
  );
  const failures = await rowsOf<{ code: number | null; n: number }>(
    t.ctx.db,
    sql`select error_code as code, failures as n from campaign_rollup_failures where campaign_id = ${campaignId}`,
  );
  return {
    funnel: [f.attempted, f.sent, f.delivered, f.read, f.replied].map(Number) as Recount['funnel'],
    minutes: new Map(minutes.map((m) => [m.at, [Number(m.sent), Number(m.delivered), Number(m.read)]])),
    quarters: new Map(quarters.map((q) => [q.at, [Number(q.sent), Number(q.delivered), Number(q.read), Number(q.failed)]])),
    failures: new Map(failures.map((x) => [String(x.code), Number(x.n)])),
    costs: lines(await rowsOf(t.ctx.db, sql`select variant, category, type, model, country, sample, day, n from campaign_rollup_costs where campaign_id = ${campaignId}`)),
    countries: lines(await rowsOf(t.ctx.db, sql`select country, sample, n from campaign_rollup_countries where campaign_id = ${campaignId}`)),
    routes: [Number(f.mm), Number(f.cloud)],
  };
}

const allCampaigns = () => [...campaignsOf.values()].flat();

async function expectEveryBucketRecounted(): Promise<void> {
  for (const id of allCampaigns()) expect(await rollupOf(id), `campaign ${id}`).toEqual(await recount(id));
}

class Aborted extends Error {}

beforeAll(async () => {
  t = await createTestApp();
  for (const name of ['a', 'b']) {
    const { userId } = await t.signUp();
    owners.push(userId);
    const kommo = await insertKommoAccount(t.ctx.db, t.ctx.secrets, userId, `rollups-${name}`);
    const accounts = [];
    for (const n of [1, 2]) {
      accounts.push(await insertWhatsAppAccount(t.ctx.db, t.ctx.secrets, userId, { phoneNumberId: `pn-rollup-${name}-${n}`, wabaId: `w-${name}`, token: 'x', kommoAccountId: kommo }));
    }
    numbers.set(userId, accounts);
    const ids = [];
    for (const account of [accounts[0]!, accounts[1]!, accounts[0]!, null]) {
      const id = await insertCampaign(userId, account);
      await addRecipients(id, userId, 20 + Math.floor(rand() * 60));
      ids.push(id);
    }
    campaignsOf.set(userId, ids);
  }
});
afterAll(() => t.close());

describe('the campaign-rollups job', () => {
  it('adds nothing to the send path: no trigger on campaign_recipients', async () => {
    const [row] = await rowsOf<{ n: number }>(
      t.ctx.db,
      sql`select count(*)::int as n from pg_trigger where tgrelid = 'campaign_recipients'::regclass and not tgisinternal`,
    );
    expect(Number(row!.n)).toBe(0);
  });

  it('equals a recount in every bucket after folds aborted at random points and passes stopped between campaigns', async () => {
    let aborted = 0;
    let stopped = 0;
    for (let round = 0; round < 12; round++) {
      await moveRecipients();
      // A pass whose folds die at a random step of some campaigns: each such campaign keeps
      // exactly the rollup it had before the pass.
      const before = new Map<number, Recount | null>();
      for (const id of allCampaigns()) before.set(id, await rollupOf(id));
      const failedIds: number[] = [];
      const pass = await foldChangedCampaigns(t.ctx.db, {
        gap: 0,
        // About one fold in three dies, at any of its steps.
        onStep: (step) => {
          if (rand() < 0.07) throw new Aborted(step);
        },
        onError: (id, err) => {
          expect(err).toBeInstanceOf(Aborted);
          failedIds.push(id);
        },
      });
      aborted += failedIds.length;
      if (failedIds.length) expect(pass.complete).toBe(false);
      for (const id of failedIds) expect(await rollupOf(id), `aborted fold of ${id}`).toEqual(before.get(id));
      // A pass stopped between two campaigns (the process killed or stopping).
      if (rand() < 0.5) {
        await moveRecipients();
        const ctl = new AbortController();
        let folds = 0;
        const partial = await foldChangedCampaigns(t.ctx.db, {
          gap: 0,
          signal: ctl.signal,
          onStep: (step) => {
            if (step === 'failures' && ++folds >= 1) ctl.abort();
          },
        });
        if (!partial.complete) stopped++;
      }
      if (rand() < 0.3) await moveRecipients();
      // The next clean pass brings every campaign up to date.
      const clean = await foldRollups(t.ctx.db);
      expect(clean.complete).toBe(true);
      await expectEveryBucketRecounted();
    }
    expect(aborted).toBeGreaterThan(0);
    expect(stopped).toBeGreaterThan(0);
  });

  it('folds only the campaigns whose recipients moved', async () => {
    await foldRollups(t.ctx.db);
    expect((await foldRollups(t.ctx.db)).folded).toBe(0);
    const [owner] = owners;
    const [id] = campaignsOf.get(owner!)!;
    const [r] = await rowsOf<{ id: number }>(t.ctx.db, sql`select id::int as id from campaign_recipients where campaign_id = ${id} and status in ('pending', 'sent', 'delivered') limit 1`);
    expect(await applyDeliveryFacts(t.ctx.db, [{ recipientId: Number(r!.id), readAt: new Date().toISOString() }])).toBe(1);
    const pass = await foldRollups(t.ctx.db);
    expect(pass.folded).toBe(1);
    expect(await rollupOf(id!)).toEqual(await recount(id!));
  });

  it('answers the charts and the dashboard as the raw recipients did, in several zones', async () => {
    await foldRollups(t.ctx.db);
    for (const userId of owners) {
      for (const tz of ['UTC', 'America/Bogota', 'Asia/Kolkata', 'America/Argentina/Buenos_Aires']) {
        for (const id of campaignsOf.get(userId)!) {
          const { folded_at, ...fromRollups } = await campaignStats(t.ctx.db, userId, id, { tz });
          expect(folded_at).toEqual(expect.any(String));
          expect(fromRollups, `campaign ${id} in ${tz}`).toEqual(await campaignStatsFromRecipients(t.ctx.db, userId, id, { tz }));
        }
        for (const days of [30, 7, 90]) {
          const { folded_at, ...fromRollups } = await dashboardActivity(t.ctx.db, userId, { tz, days });
          expect(folded_at).toEqual(expect.any(String));
          const raw = await dashboardActivityFromRecipients(t.ctx.db, userId, { tz, days });
          expect(fromRollups, `dashboard of ${userId} in ${tz}, ${days} days`).toEqual(raw);
          expect(raw.numbers.some((n) => n.days.some((d) => d.sent > 0))).toBe(true);
        }
      }
    }
  });

  it("answers the campaign screen's cost, estimate and routes as the raw recipients did, and says as of when", async () => {
    await foldRollups(t.ctx.db);
    // The shipped default rate card prices marketing in AR and CO; other lines are "sin tarifa".
    let priced = 0;
    for (const userId of owners) {
      for (const id of campaignsOf.get(userId)!) {
        const campaign = { id, templateCategory: 'MARKETING', startedAt: new Date() };
        // Every campaign here is small: read from the rollups as a big one is.
        const fromRollups = await campaignCost(t.ctx.db, userId, campaign, { fromRollupsAt: 0 });
        const marketingFromRollups = await campaignMarketing(t.ctx.db, await loadCampaignRow(t.ctx.db, userId, id), { fromRollupsAt: 0 });
        expect(fromRollups.as_of).toEqual(expect.any(String));
        // The same campaign counted from its recipients (as a campaign not folded yet is).
        await t.ctx.db.execute(sql`update campaign_rollups set costs_folded = false where campaign_id = ${id}`);
        const raw = await campaignCost(t.ctx.db, userId, campaign, { fromRollupsAt: 0 });
        const marketingRaw = await campaignMarketing(t.ctx.db, await loadCampaignRow(t.ctx.db, userId, id), { fromRollupsAt: 0 });
        await t.ctx.db.execute(sql`update campaign_rollups set costs_folded = true where campaign_id = ${id}`);
        expect(raw.as_of).toBeNull();
        expect({ ...fromRollups, as_of: null }, `cost of campaign ${id}`).toEqual(raw);
        expect(marketingFromRollups, `routes of campaign ${id}`).toEqual(marketingRaw);
        priced += fromRollups.priced;
      }
    }
    expect(priced).toBeGreaterThan(0);
    // Below EXACT_BELOW recipients the screen counts them at every read: exact at once.
    const [owner] = owners;
    const [id] = campaignsOf.get(owner!)!;
    expect((await campaignCost(t.ctx.db, owner!, { id: id!, templateCategory: 'MARKETING', startedAt: new Date() })).as_of).toBeNull();
  });

  it("folds a small campaign whose recipients moved when its charts are asked for: exact at once", async () => {
    await foldRollups(t.ctx.db);
    const owner = owners[0]!;
    const id = campaignsOf.get(owner)![1]!;
    await addRecipients(id, owner, 5);
    const { folded_at, ...stats } = await campaignStats(t.ctx.db, owner, id, {});
    expect(stats).toEqual(await campaignStatsFromRecipients(t.ctx.db, owner, id, {}));
    expect(Date.now() - Date.parse(folded_at!)).toBeLessThan(60_000);
  });

  it('folds a campaign never folded when its charts are asked for, and says as of when', async () => {
    const owner = owners[1]!;
    const id = await insertCampaign(owner, numbers.get(owner)![0]!);
    await addRecipients(id, owner, 15);
    const { folded_at, ...stats } = await campaignStats(t.ctx.db, owner, id, {});
    expect(stats).toEqual(await campaignStatsFromRecipients(t.ctx.db, owner, id, {}));
    expect(Date.now() - Date.parse(folded_at!)).toBeLessThan(60_000);
    campaignsOf.get(owner)!.push(id);
  });

  it('keeps the previous rollup when its fold is aborted, and records no pass', async () => {
    const [passBefore] = await rowsOf<{ at: string | null }>(t.ctx.db, sql`select passed_at::text as at from campaign_rollup_passes where name = ${ROLLUP_JOB}`);
    const id = campaignsOf.get(owners[0]!)![1]!;
    const before = await rollupOf(id);
    await addRecipients(id, owners[0]!, 3);
    await expect(
      foldCampaign(t.ctx.db, id, {
        onStep: (s) => {
          if (s === 'failures') throw new Aborted(s);
        },
      }),
    ).rejects.toBeInstanceOf(Aborted);
    expect(await rollupOf(id)).toEqual(before);
    const folds: Array<{ result: string; seconds: number }> = [];
    const failed: number[] = [];
    const pass = await foldChangedCampaigns(t.ctx.db, {
      gap: 0,
      onStep: () => {
        throw new Aborted('x');
      },
      onError: (campaignId) => failed.push(campaignId),
      onFolded: (result, seconds) => folds.push({ result, seconds }),
    });
    expect(pass.complete).toBe(false);
    // Each failed fold is reported to the job's metrics as an error, with its time.
    expect(failed).toContain(id);
    expect(folds).toHaveLength(failed.length);
    expect(folds.every((f) => f.result === 'error' && f.seconds >= 0)).toBe(true);
    const [passAfter] = await rowsOf<{ at: string | null }>(t.ctx.db, sql`select passed_at::text as at from campaign_rollup_passes where name = ${ROLLUP_JOB}`);
    expect(passAfter).toEqual(passBefore);
    await foldRollups(t.ctx.db);
    expect(await rollupOf(id)).toEqual(await recount(id));
  });

  it('folds a campaign again only after a few times its last fold, and says its figures are as of that fold meanwhile', async () => {
    const owner = owners[1]!;
    const [slow, quick] = campaignsOf.get(owner)!;
    // A big campaign (a small one's charts are folded at the read when it moved: EXACT_BELOW).
    await t.ctx.db.execute(sql`update campaigns set total_recipients = total_recipients + ${EXACT_BELOW} where id = ${slow}`);
    await foldRollups(t.ctx.db);
    // As if the last fold of `slow` had taken a minute (a very big campaign).
    await t.ctx.db.execute(sql`update campaign_rollups set fold_ms = 60000 where campaign_id = ${slow}`);
    const [{ at: slowFold }] = await rowsOf<{ at: string }>(t.ctx.db, sql`select to_json(folded_at)#>>'{}' as at from campaign_rollups where campaign_id = ${slow}`);
    await new Promise((res) => setTimeout(res, 20));
    // Ten, not two: two random rows can both be pending and change no chart (then the skipped
    // fold could not be told from a fold).
    await addRecipients(slow!, owner, 10);
    await addRecipients(quick!, owner, 2);
    const pass = await foldChangedCampaigns(t.ctx.db);
    expect(pass.folded).toBe(1);
    expect(await rollupOf(quick!)).toEqual(await recount(quick!));
    expect(await rollupOf(slow!)).not.toEqual(await recount(slow!));
    // The moved campaign is shown as of its own fold, not of the pass that skipped it.
    const stats = await campaignStats(t.ctx.db, owner, slow!, {});
    expect(Date.parse(stats.folded_at!)).toBe(Date.parse(slowFold!));
    expect(Date.parse((await campaignStats(t.ctx.db, owner, quick!, {})).folded_at!)).toBeGreaterThan(Date.parse(slowFold!));
    expect(Date.parse((await dashboardActivity(t.ctx.db, owner, {})).folded_at!)).toBe(Date.parse(slowFold!));
    await foldRollups(t.ctx.db);
    expect(await rollupOf(slow!)).toEqual(await recount(slow!));
  });

  it('folds a campaign that is sending at most every 30 s, so its folds do not take the senders\' database time', async () => {
    const owner = owners[1]!;
    const sending = campaignsOf.get(owner)![2]!;
    await t.ctx.db.execute(sql`update campaigns set status = 'sending' where id = ${sending}`);
    await foldRollups(t.ctx.db);
    await addRecipients(sending, owner, 2);
    expect((await foldChangedCampaigns(t.ctx.db)).folded).toBe(0);
    await t.ctx.db.execute(sql`update campaign_rollups set folded_at = folded_at - interval '31 seconds' where campaign_id = ${sending}`);
    expect((await foldChangedCampaigns(t.ctx.db)).folded).toBe(1);
    expect(await rollupOf(sending)).toEqual(await recount(sending));
    await t.ctx.db.execute(sql`update campaigns set status = 'completed' where id = ${sending}`);
    // Its completion moved its mark: folded now, so the passes below see the new campaign alone
    // (left to the job, it would be folded once FOLD_GAP times its last fold had passed: timing).
    await foldRollups(t.ctx.db);
    // One started a moment ago and never folded: not before 30 s from its start either.
    const fresh = await insertCampaign(owner, numbers.get(owner)![1]!);
    await t.ctx.db.execute(sql`update campaigns set status = 'sending', started_at = now() where id = ${fresh}`);
    await addRecipients(fresh, owner, 3);
    expect((await foldChangedCampaigns(t.ctx.db)).folded).toBe(0);
    await t.ctx.db.execute(sql`update campaigns set started_at = now() - interval '31 seconds' where id = ${fresh}`);
    expect((await foldChangedCampaigns(t.ctx.db)).folded).toBe(1);
    expect(await rollupOf(fresh)).toEqual(await recount(fresh));
    await t.ctx.db.execute(sql`update campaigns set status = 'completed' where id = ${fresh}`);
    campaignsOf.get(owner)!.push(fresh);
  });

  it('runs on the job runner, once across processes, and keeps the charts current', async () => {
    const owner = owners[0]!;
    const id = campaignsOf.get(owner)![0]!;
    await addRecipients(id, owner, 4);
    const runner = new JobRunner({ db: t.ctx.db, log: t.ctx.log, owner: 'rollups-test' });
    runner.periodic(campaignRollups(t.ctx, 50));
    await runner.start();
    try {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const [r] = await rowsOf<{ n: number }>(
          t.ctx.db,
          sql`select count(*)::int as n from campaigns c join campaign_rollups r on r.campaign_id = c.id
              where r.source_mark <> concat_ws('|', (extract(epoch from c.updated_at) * 1000000)::bigint, c.status,
                c.total_recipients, c.messages_sent, c.delivered_count, c.read_count, c.failed_count, c.skipped_count,
                c.unknown_count, c.pending_count, c.deferred_count, c.expired_count, c.replied_count)`,
        );
        if (Number(r!.n) === 0) break;
        if (Date.now() > deadline) throw new Error('the job did not fold the campaign');
        await new Promise((res) => setTimeout(res, 50));
      }
    } finally {
      await runner.stop();
    }
    expect(await rollupOf(id)).toEqual(await recount(id));
  });
});
