import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SPLIT_STOPPED_REASON } from '@masivo/contract/split-test';
import { rowsOf } from '../src/db/sql';
import { decideSplit, sampleCheck, twoProportionZTest, wilsonInterval } from '../src/lib/stats/two-proportion';
import { claimRecipients } from '../src/engine/campaigns/claim';
import { createCampaign } from '../src/services/campaigns/create-campaign';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { SPLIT_TEST_FIXED, updateCampaign } from '../src/services/campaigns/update-campaign';
import { decideSplitTest, splitResultOf } from '../src/services/campaigns/split-test-decision';
import { splitBucketSql } from '../src/services/campaigns/split-test';
import { compareFinishedSplitTests } from '../src/services/campaigns/split-test-compare';
import { parseComparison } from '../src/integrations/whatsapp/template-compare';
import type { GraphClient, GraphRequest } from '../src/integrations/whatsapp/graph-client';
import { insertMappings, insertTemplate, simPromoTemplate } from './helpers/campaign-fixtures';
import { startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

describe('the two-proportion z-test', () => {
  it('matches values computed by hand', () => {
    // 130/1000 against 100/1000: p̂ = 230/2000 = 0.115, SE = √(0.115·0.885·(2/1000)) = 0.014267,
    // z = 0.03 / 0.014267 = 2.1027, two-sided p = 2·(1 − Φ(2.1027)) = 0.0355.
    const a = twoProportionZTest({ n: 1000, x: 130 }, { n: 1000, x: 100 });
    expect(a.z).toBeCloseTo(2.1027, 3);
    expect(a.p).toBeCloseTo(0.0355, 4);
    // 64/200 against 36/200: p̂ = 0.25, SE = √(0.25·0.75·0.01) = 0.043301, z = 0.14/0.043301 = 3.2332, p = 0.00122.
    const b = twoProportionZTest({ n: 200, x: 64 }, { n: 200, x: 36 });
    expect(b.z).toBeCloseTo(3.2332, 3);
    expect(b.p).toBeCloseTo(0.001224, 5);
    // Symmetric, and no difference (or no trials) is p = 1.
    expect(twoProportionZTest({ n: 200, x: 36 }, { n: 200, x: 64 }).z).toBeCloseTo(-3.2332, 3);
    expect(twoProportionZTest({ n: 50, x: 0 }, { n: 50, x: 0 })).toEqual({ z: 0, p: 1 });
    expect(twoProportionZTest({ n: 0, x: 0 }, { n: 50, x: 3 })).toEqual({ z: 0, p: 1 });
  });

  it('gives the Wilson interval of a rate', () => {
    // 10 of 100 at 95 %: 0.0552 – 0.1744 (the Wilson score interval's textbook value).
    const ci = wilsonInterval({ n: 100, x: 10 })!;
    expect(ci.low).toBeCloseTo(0.0552, 3);
    expect(ci.high).toBeCloseTo(0.1744, 3);
    expect(wilsonInterval({ n: 0, x: 0 })).toBeNull();
  });

  it('decides two arms at 95 % and words the result', () => {
    const won = splitResultOf({ no_winner: 'stop', variants: [] }, [{ n: 1000, x: 100 }, { n: 1000, x: 130 }], new Date(0));
    expect(won).toMatchObject({ outcome: 'winner', winner: 'B', best: 'B', significant: true });
    expect(won.p_value).toBeCloseTo(0.0355, 4);
    expect(won.summary).toBe('Ganó B (+3,0 pts, p = 0,035)');
    const none = splitResultOf({ no_winner: 'stop', variants: [] }, [{ n: 100, x: 10 }, { n: 100, x: 12 }], new Date(0));
    expect(none).toMatchObject({ outcome: 'stopped', winner: null, best: 'B', significant: false, summary: 'Sin diferencia significativa' });
    const best = splitResultOf({ no_winner: 'send_best', variants: [] }, [{ n: 100, x: 12 }, { n: 100, x: 10 }], new Date(0));
    expect(best).toMatchObject({ outcome: 'best', winner: 'A', significant: false, summary: 'Sin diferencia significativa' });
    expect(splitResultOf({ no_winner: 'stop', variants: [] }, [{ n: 200, x: 64 }, { n: 200, x: 36 }], new Date(0)).summary).toBe(
      'Ganó A (+14,0 pts, p = 0,001)',
    );
  });

  it('tests each arm against the best with the Bonferroni correction', () => {
    // The best (130/1000) beats 100/1000 with p = 0.0355: significant with two arms…
    expect(decideSplit([{ n: 1000, x: 100 }, { n: 1000, x: 130 }])).toMatchObject({ best: 1, significant: true });
    // …but with three arms each p is doubled: 0.071 ≥ 0.05, no winner.
    const three = decideSplit([{ n: 1000, x: 100 }, { n: 1000, x: 130 }, { n: 1000, x: 60 }]);
    expect(three.best).toBe(1);
    expect(three.significant).toBe(false);
    expect(three.p).toBeCloseTo(0.071, 3);
    expect(three.comparisons.map((c) => c.arm)).toEqual([0, 2]);
    expect(three.liftPoints).toBeCloseTo(3, 6);
    // A best clearly ahead of all three others wins even at α/3.
    const four = decideSplit([{ n: 1000, x: 100 }, { n: 1000, x: 180 }, { n: 1000, x: 90 }, { n: 1000, x: 110 }]);
    expect(four).toMatchObject({ best: 1, significant: true });
    for (const c of four.comparisons) expect(c.pAdjusted).toBeCloseTo(Math.min(1, c.p * 3), 12);
    expect(four.p).toBe(Math.max(...four.comparisons.map((c) => c.pAdjusted)));
  });
});

describe('the minimum sample per arm', () => {
  it("declares no winner while the z-test's large-sample condition fails, whatever its p-value", () => {
    // 8 sends per arm: under the floor of 10, however clear the difference looks.
    expect(sampleCheck([{ n: 8, x: 0 }, { n: 8, x: 8 }], 10, 5)).toEqual({ sufficient: false, shortArms: [0, 1], lowExpected: true });
    const short = splitResultOf({ no_winner: 'stop', variants: [], metric: 'read' }, [{ n: 8, x: 0 }, { n: 8, x: 8 }], new Date(0));
    expect(decideSplit([{ n: 8, x: 0 }, { n: 8, x: 8 }]).significant).toBe(true);
    expect(short).toMatchObject({ outcome: 'stopped', winner: null, best: 'B', significant: false, insufficient_sample: true, summary: 'Muestra insuficiente' });
    expect(short.sample_note).toBe('Cada variante necesita al menos 10 envíos aceptados por Meta (A: 8, B: 8).');
    // Enough sends, too few expected successes (2 % pooled over 100 per arm: 2 each) → no winner; send_best sends the best.
    const rare = splitResultOf({ no_winner: 'send_best', variants: [], metric: 'reply' }, [{ n: 100, x: 0 }, { n: 100, x: 4 }], new Date(0));
    expect(rare).toMatchObject({ outcome: 'best', winner: 'B', significant: false, insufficient_sample: true, summary: 'Muestra insuficiente' });
    expect(rare.sample_note).toMatch(/al menos 5 respuestas esperadas y 5 envíos sin respuestas/);
    // 12 per arm at a pooled 50 %: 6 expected each way, the condition holds and B wins.
    expect(sampleCheck([{ n: 12, x: 0 }, { n: 12, x: 12 }], 10, 5).sufficient).toBe(true);
    expect(splitResultOf({ no_winner: 'stop', variants: [] }, [{ n: 12, x: 0 }, { n: 12, x: 12 }], new Date(0))).toMatchObject({
      outcome: 'winner',
      winner: 'B',
      insufficient_sample: false,
      sample_note: null,
    });
  });
});

const NUMBER = { phoneNumberId: '3101', wabaId: '3201', token: 'tok-ab', rate: 40 };
const CONTACTS = 120;

let bed: EngineBed;
let templateB: number;
let templateC: number;
beforeAll(async () => {
  bed = await startEngineBed({ numbers: [NUMBER], contacts: CONTACTS, engine: { splitCompareMs: 200 } });
  const w = bed.worlds[0];
  templateB = await insertTemplate(bed.t.ctx.db, bed.userId, w.whatsappAccountId, { name: 'promo_b' });
  await insertMappings(bed.t.ctx.db, bed.userId, templateB);
  templateC = await insertTemplate(bed.t.ctx.db, bed.userId, w.whatsappAccountId, { name: 'promo_c' });
  await insertMappings(bed.t.ctx.db, bed.userId, templateC);
  bed.sim.addTemplate({ ...simPromoTemplate(NUMBER.wabaId), name: 'promo_b' });
  bed.sim.addTemplate({ ...simPromoTemplate(NUMBER.wabaId), name: 'promo_c' });
});
afterAll(() => bed?.close());
beforeEach(() => {
  bed.sim.reset();
  bed.sim.configure({ readRate: 1, templateReadRates: {} });
});

/** A split test of A (promo) and B (promo_b) on the whole world, created (not started). */
async function createSplit(ab: { share: number; no_winner: 'send_best' | 'stop'; wait_seconds?: number }, variants = [templateB]) {
  const w = bed.worlds[0];
  return createCampaign(bed.t.ctx, bed.userId, {
    name: 'Prueba A/B',
    kommo_account_id: w.kommoAccountId,
    whatsapp_account_id: w.whatsappAccountId,
    template_id: w.templateId,
    variants: [{ template_id: w.templateId }, ...variants.map((template_id) => ({ template_id }))],
    ab_test: { share: ab.share, metric: 'read', wait_seconds: ab.wait_seconds ?? 1, no_winner: ab.no_winner },
  });
}

const recipients = (campaignId: number) =>
  rowsOf<{ id: number; phone: string; phone_key: string; variant: number | null; status: string; error_message: string | null }>(
    bed.t.ctx.db,
    sql`select id, phone, phone_key, variant, status, error_message from campaign_recipients where campaign_id = ${campaignId} order by id`,
  );

describe('a split test ("Prueba A/B")', () => {
  it('checks its variants and settings when created', async () => {
    const w = bed.worlds[0];
    const base = { name: 'x', kommo_account_id: w.kommoAccountId, whatsapp_account_id: w.whatsappAccountId, template_id: w.templateId };
    const ab = { share: 0.2, metric: 'read' as const, wait_seconds: 60, no_winner: 'stop' as const };
    await expect(createCampaign(bed.t.ctx, bed.userId, { ...base, variants: [{ template_id: w.templateId }, { template_id: templateB }] })).rejects.toThrow(
      'Una prueba A/B necesita las variantes (variants) y su configuración (ab_test)',
    );
    await expect(createCampaign(bed.t.ctx, bed.userId, { ...base, variants: [{ template_id: templateB }, { template_id: w.templateId }], ab_test: ab })).rejects.toThrow(
      'La variante A debe ser la plantilla de la campaña',
    );
    await expect(createCampaign(bed.t.ctx, bed.userId, { ...base, variants: [{ template_id: w.templateId }], ab_test: ab })).rejects.toThrow('de 2 a 4 variantes');
    await expect(
      createCampaign(bed.t.ctx, bed.userId, { ...base, variants: [{ template_id: w.templateId }, { template_id: w.templateId }], ab_test: ab }),
    ).rejects.toThrow('Cada variante debe usar una plantilla distinta');
    await expect(
      createCampaign(bed.t.ctx, bed.userId, { ...base, variants: [{ template_id: w.templateId }, { template_id: templateB }], ab_test: { ...ab, metric: 'opens' as never } }),
    ).rejects.toThrow('Métrica inválida');
    // An unmapped variant template is refused as the campaign's own would be.
    const unmapped = await insertTemplate(bed.t.ctx.db, bed.userId, w.whatsappAccountId, { name: 'promo_sin_mapeo' });
    await expect(
      createCampaign(bed.t.ctx, bed.userId, { ...base, variants: [{ template_id: w.templateId }, { template_id: unmapped }], ab_test: ab }),
    ).rejects.toThrow();
    // The pre-flight checks every variant's template and says which one cannot be sent.
    const pre = await bed.t.app.inject({
      method: 'POST',
      url: '/api/campaigns/preflight',
      headers: bed.headers,
      payload: { ...base, variants: [{ template_id: w.templateId }, { template_id: unmapped }], ab_test: ab },
    });
    expect(pre.statusCode).toBe(200);
    expect(pre.json().template_problem).toMatch(/^Variante B: /);
    const fine = await bed.t.app.inject({
      method: 'POST',
      url: '/api/campaigns/preflight',
      headers: bed.headers,
      payload: { ...base, variants: [{ template_id: w.templateId }, { template_id: templateB }], ab_test: ab },
    });
    expect(fine.json().template_problem).toBeNull();
    const ok = await createSplit({ share: 0.2, no_winner: 'stop' });
    expect(ok.split_test).toMatchObject({ ab_test: { share: 0.2, metric: 'read', no_winner: 'stop' }, result: null, decide_at: null });
    // Its template and number stay those its variants were checked against.
    await expect(updateCampaign(bed.t.ctx, bed.userId, ok.id, { template_id: templateC })).rejects.toThrow(SPLIT_TEST_FIXED);
    expect(ok.split_test!.arms.map((a) => [a.variant, a.template_name])).toEqual([
      ['A', 'promo'],
      ['B', 'promo_b'],
    ]);
  });

  it('splits people deterministically: the same person in the same arm, shares within tolerance', async () => {
    // The SQL bucket is md5(key:campaign)'s first 32 bits over 2³²: the same value Node computes.
    const keys = ['+5491100000001', '+5491100000002', 'bsuid.AR.123'];
    const [row] = await rowsOf<Record<string, number>>(
      bed.t.ctx.db,
      sql`select ${sql.join(keys.map((k, i) => sql`${splitBucketSql(sql`${k}::text`, 77)} as k${sql.raw(String(i))}`), sql`, `)}`,
    );
    keys.forEach((k, i) => {
      const expected = parseInt(createHash('md5').update(`${k}:77`).digest('hex').slice(0, 8), 16) / 2 ** 32;
      expect(Number(row[`k${i}`])).toBeCloseTo(expected, 12);
    });
    // 20,000 people, share 0.3 over 3 arms: 10 % each (± 1 point), the rest 70 %.
    const [dist] = await rowsOf<Record<string, number>>(
      bed.t.ctx.db,
      sql`with b as (select ${splitBucketSql(sql`'+54911' || lpad(i::text, 8, '0')`, 5)} as u from generate_series(1, 20000) i)
          select (count(*) filter (where u < 0.1))::int as a, (count(*) filter (where u >= 0.1 and u < 0.2))::int as b,
            (count(*) filter (where u >= 0.2 and u < 0.3))::int as c, (count(*) filter (where u >= 0.3))::int as rest from b`,
    );
    for (const arm of ['a', 'b', 'c']) expect(Math.abs(Number(dist[arm]) / 20000 - 0.1)).toBeLessThan(0.01);
    expect(Math.abs(Number(dist.rest) / 20000 - 0.7)).toBeLessThan(0.015);

    // Two campaigns with the same audience: each person's arm is the same at every freeze of
    // the same campaign id, and the test slice is about the share.
    const c = await createSplit({ share: 0.5, no_winner: 'stop', wait_seconds: 3600 });
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    const rows = await recipients(c.id);
    expect(rows).toHaveLength(CONTACTS);
    for (const r of rows) {
      const u = parseInt(createHash('md5').update(`${r.phone_key}:${c.id}`).digest('hex').slice(0, 8), 16) / 2 ** 32;
      expect(r.variant).toBe(u < 0.5 ? Math.floor((u / 0.5) * 2) : null);
    }
    const slice = rows.filter((r) => r.variant !== null).length;
    expect(slice).toBeGreaterThan(CONTACTS * 0.3);
    expect(slice).toBeLessThan(CONTACTS * 0.7);
    // While the test waits for its decision, the claim only takes rows with an arm.
    await bed.t.ctx.db.execute(sql`update campaigns set status = 'paused' where id = ${c.id}`);
    await bed.t.ctx.db.execute(sql`update campaigns set status = 'sending' where id = ${c.id}`);
    await waitFor(
      () => recipients(c.id),
      (rs) => rs.filter((r) => (r.status === 'pending' || r.status === 'sending') && r.variant !== null).length === 0,
      20_000,
      'test slice sent',
    );
    const held = (await recipients(c.id)).filter((r) => r.variant === null);
    expect(held.every((r) => r.status === 'pending')).toBe(true);
    expect(await claimRecipients(bed.t.ctx.db, c.id, 'test-owner', 500)).toEqual([]);
    // They wait at 'infinity', beyond every range scan of due rows, until the decision.
    const [due] = await rowsOf<{ held: number; infinite: number }>(
      bed.t.ctx.db,
      sql`select (count(*) filter (where variant is null))::int as held,
            (count(*) filter (where variant is null and next_attempt_at = 'infinity'))::int as infinite
          from campaign_recipients where campaign_id = ${c.id}`,
    );
    expect(due.infinite).toBe(due.held);
    expect(due.held).toBe(held.length);
    await bed.t.ctx.db.execute(sql`update campaigns set status = 'cancelled' where id = ${c.id}`);
  });

  it('sends each arm its template, picks the winner after the wait and sends it to the rest, once', async () => {
    // B's recipients read it, A's do not: B wins.
    bed.sim.configure({ templateReadRates: { promo: 0, promo_b: 1 } });
    const c = await createSplit({ share: 0.6, no_winner: 'stop', wait_seconds: 1 });
    const started = await startCampaign(bed.t.ctx, bed.userId, c.id);
    expect(started.split_test!.decide_at).not.toBeNull();
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 30_000, 'split test completed');
    const result = done.split_test!.result!;
    expect(result).toMatchObject({ outcome: 'winner', winner: 'B', best: 'B', significant: true });
    expect(result.summary).toMatch(/^Ganó B \(\+\d+,\d pts, p [=<] \d,\d{3}\)$/);
    expect(result.test_arms.map((a) => a.variant)).toEqual(['A', 'B']);

    const rows = await recipients(c.id);
    // Every person has exactly one arm, the rest B's; each was sent once, with their arm's template.
    expect(rows.every((r) => r.variant === 0 || r.variant === 1)).toBe(true);
    const sent = bed.sim.messages();
    expect(bed.sim.duplicates()).toEqual([]);
    expect(sent).toHaveLength(CONTACTS);
    const byPhone = new Map(sent.map((m) => [m.to, m.template]));
    for (const r of rows) expect(byPhone.get(r.phone.replace('+', ''))).toBe(r.variant === 0 ? 'promo' : 'promo_b');
    // The rest was sent after the decision, not before.
    const a = done.split_test!.arms;
    expect(a[0].recipients + a[1].recipients).toBe(CONTACTS);
    expect(a[1].recipients).toBeGreaterThan(result.test_arms[1].sent);
    expect(done.split_test!.waiting).toBe(0);
    // Each arm's cost is its delivered messages priced as the campaign's: the arms add up to it.
    const real = await waitFor(() => bed.campaign(c.id), (x) => x.delivered_count === CONTACTS, 15_000, 'all delivered');
    const arms = real.split_test!.arms;
    expect(real.actual_cost!.total).toBeGreaterThan(0);
    expect(arms[0].cost).toBeGreaterThan(0);
    expect(arms[1].cost).toBeGreaterThan(arms[0].cost);
    expect(arms[0].cost + arms[1].cost).toBeCloseTo(real.actual_cost!.total, 6);
    // Deciding again changes nothing.
    expect(await decideSplitTest(bed.t.ctx.db, c.id)).toBe(false);
    // The recipients' page and the export say each row's variant.
    const page = await bed.t.app.inject({ method: 'GET', url: `/api/campaigns/${c.id}/messages?limit=200`, headers: bed.headers });
    const variants = new Set(page.json().messages.map((m: { variant: string }) => m.variant));
    expect(variants).toEqual(new Set(['A', 'B']));
  });

  it('stops the campaign with the rest unsent when no variant wins and no_winner is stop', async () => {
    // Nobody reads either variant: no difference.
    bed.sim.configure({ readRate: 0 });
    const c = await createSplit({ share: 0.4, no_winner: 'stop', wait_seconds: 1 });
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 30_000, 'stopped split test completed');
    // Nobody read: too few expected reads for the z-test; after the longer wait (1 s) the no-winner rule applies.
    expect(done.split_test!.result).toMatchObject({ outcome: 'stopped', winner: null, significant: false, summary: 'Muestra insuficiente', insufficient_sample: true });
    const rows = await recipients(c.id);
    const rest = rows.filter((r) => r.variant === null);
    expect(rest.length).toBeGreaterThan(0);
    expect(rest.every((r) => r.status === 'skipped' && r.error_message === SPLIT_STOPPED_REASON)).toBe(true);
    expect(bed.sim.messages()).toHaveLength(rows.length - rest.length);
    expect(done.skipped_count).toBe(rest.length);
    expect(done.pending_count).toBe(0);
  });

  it('waits longer when the successes are too few for the z-test, then applies the no-winner rule', async () => {
    bed.sim.configure({ readRate: 0 });
    const c = await createSplit({ share: 0.5, no_winner: 'stop', wait_seconds: 3600 });
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    await waitFor(
      () => recipients(c.id),
      (rs) => rs.filter((r) => (r.status === 'pending' || r.status === 'sending') && r.variant !== null).length === 0,
      20_000,
      'test slice sent',
    );
    const [{ decide_at: decideAt }] = await rowsOf<{ decide_at: string }>(bed.t.ctx.db, sql`select split_decide_at::text as decide_at from campaigns where id = ${c.id}`);
    const due = new Date(new Date(decideAt).getTime() + 1_000);
    // Nobody read: 0 expected reads per arm. The wait is extended by the set wait (1 h), looked at again in 5 min.
    expect(await decideSplitTest(bed.t.ctx.db, c.id, due)).toBe(false);
    const before = await bed.campaign(c.id);
    expect(before.split_test!.result).toBeNull();
    expect(before.split_test!.sample).toMatchObject({ sufficient: false, min_sends: 10, min_expected: 5 });
    expect(before.split_test!.sample.note).toMatch(/al menos 5 lecturas esperadas/);
    const until = new Date(before.split_test!.sample.extended_until!);
    expect(until.getTime()).toBe(new Date(decideAt).getTime() + 3_600_000);
    expect(new Date(before.split_test!.decide_at!).getTime()).toBe(due.getTime() + 5 * 60_000);
    // Still short when the longer wait ends: the no-winner rule (stop) applies.
    expect(await decideSplitTest(bed.t.ctx.db, c.id, new Date(until.getTime() + 1_000))).toBe(true);
    const after = await bed.campaign(c.id);
    expect(after.split_test!.result).toMatchObject({ outcome: 'stopped', winner: null, insufficient_sample: true, summary: 'Muestra insuficiente' });
    expect(after.split_test!.sample).toMatchObject({ sufficient: false });
    expect((await recipients(c.id)).filter((r) => r.variant === null).every((r) => r.status === 'skipped')).toBe(true);
    await bed.t.ctx.db.execute(sql`update campaigns set status = 'cancelled' where id = ${c.id}`);
  });

  it('sends the best arm to the rest when no variant wins and no_winner is send_best, with three variants', async () => {
    bed.sim.configure({ readRate: 0 });
    const c = await createSplit({ share: 0.5, no_winner: 'send_best', wait_seconds: 1 }, [templateB, templateC]);
    await startCampaign(bed.t.ctx, bed.userId, c.id);
    const done = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'completed', 30_000, 'send_best split test completed');
    // Nobody read any variant: no difference, A (the first of the tied best) goes to the rest.
    expect(done.split_test!.result).toMatchObject({ outcome: 'best', winner: 'A', significant: false });
    const rows = await waitFor(() => recipients(c.id), (rs) => rs.every((r) => r.status === 'delivered'), 20_000, 'every message delivered');
    expect(rows.every((r) => r.variant !== null)).toBe(true);
    expect(rows.filter((r) => r.variant === 1 || r.variant === 2).length).toBeLessThan(CONTACTS * 0.5);
    expect(bed.sim.messages()).toHaveLength(CONTACTS);
    expect(bed.sim.duplicates()).toEqual([]);
    expect(new Set(bed.sim.messages().map((m) => m.template))).toEqual(new Set(['promo', 'promo_b', 'promo_c']));
  });
});


/** Meta's documented example answer of `GET /{template_id}/compare`, ids as given. */
const metaExample = (target: string, other: string) => ({
  data: [
    { metric: 'BLOCK_RATE', type: 'RELATIVE', order_by_relative_metric: [other, target] },
    { metric: 'MESSAGE_SENDS', type: 'NUMBER_VALUES', number_values: [{ key: target, value: 1273 }, { key: other, value: 1042 }] },
    {
      metric: 'TOP_BLOCK_REASON',
      type: 'STRING_VALUES',
      string_values: [{ key: target, value: 'UNKNOWN_BLOCK_REASON' }, { key: other, value: 'UNKNOWN_BLOCK_REASON' }],
    },
  ],
});

describe("Meta's template comparison of a finished split test", () => {
  it("reads Meta's documented answer", () => {
    expect(parseComparison(metaExample('5289179717853347', '1533406637136032'))).toEqual({
      orderByBlockRate: ['1533406637136032', '5289179717853347'],
      sends: { '5289179717853347': 1273, '1533406637136032': 1042 },
      topBlockReason: { '5289179717853347': 'UNKNOWN_BLOCK_REASON', '1533406637136032': 'UNKNOWN_BLOCK_REASON' },
    });
  });

  it("is asked by the engine's own job, not by the scheduler's tick", async () => {
    const db = bed.t.ctx.db;
    const c = await createSplit({ share: 0.5, no_winner: 'send_best' });
    await db.execute(sql`update campaigns set status = 'completed', completed_at = now(), audience_frozen_at = now(),
      split_result = '{"outcome":"winner","winner":"B"}'::jsonb where id = ${c.id}`);
    // Too few sends for Meta: the job settles it with the reason, without a Graph call.
    const view = await waitFor(() => bed.campaign(c.id), (v) => v.split_test?.result?.meta_compare != null, 10_000, 'meta_compare');
    expect(view.split_test!.result!.meta_compare).toEqual({
      available: false,
      reason: 'Meta compara plantillas con al menos 1.000 envíos cada una',
      arms: [],
    });
    const jobs = await rowsOf<{ name: string }>(db, sql`select name from job_schedules where name = 'split-test-compare'`);
    expect(jobs).toHaveLength(1);
  });

  it('asks once, after completion, when both arms passed 1,000 sends; says why not otherwise', async () => {
    // The engine's scheduler asks too (on the simulator): stopped, so only this test's Graph answers.
    await bed.engine.stop();
    const db = bed.t.ctx.db;
    const w = bed.worlds[0];
    await db.execute(sql`update templates set meta_id = '5289179717853347' where id = ${w.templateId}`);
    await db.execute(sql`update templates set meta_id = '1533406637136032' where id = ${templateB}`);
    const calls: GraphRequest[] = [];
    const graph: GraphClient = {
      call: async <T>(req: GraphRequest) => {
        calls.push(req);
        return metaExample('5289179717853347', '1533406637136032') as T;
      },
    };
    const finished = async (perArm: number) => {
      const c = await createSplit({ share: 0.5, no_winner: 'send_best' });
      await db.execute(sql`insert into campaign_recipients (campaign_id, user_id, phone, phone_key, status, sent_at, variant)
        select ${c.id}, ${bed.userId}, '+54911' || lpad(i::text, 8, '0'), '+54911' || lpad(i::text, 8, '0'), 'delivered', now(), (i % 2)::smallint
        from generate_series(1, ${perArm * 2}) i`);
      await db.execute(sql`update campaigns set status = 'completed', completed_at = now(), audience_frozen_at = now(),
        split_result = '{"outcome":"winner","winner":"B"}'::jsonb where id = ${c.id}`);
      return c.id;
    };
    const small = await finished(999);
    const large = await finished(1000);
    const ctx = { ...bed.t.ctx, graph };
    const settled = [...(await compareFinishedSplitTests(ctx)), ...(await compareFinishedSplitTests(ctx))];
    expect(settled.sort()).toEqual([small, large].sort());
    expect(await compareFinishedSplitTests(ctx)).toEqual([]);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/5289179717853347/compare', query: { template_ids: '[1533406637136032]' } });
    expect(Number(calls[0].query!.end) - Number(calls[0].query!.start)).toBe(604_800);
    const view = await bed.campaign(large);
    expect(view.split_test!.result!.meta_compare).toEqual({
      available: true,
      reason: null,
      arms: [
        { variant: 'A', fewer_blocks: false, sends: 1273, top_block_reason: 'UNKNOWN_BLOCK_REASON' },
        { variant: 'B', fewer_blocks: true, sends: 1042, top_block_reason: 'UNKNOWN_BLOCK_REASON' },
      ],
    });
    expect((await bed.campaign(small)).split_test!.result!.meta_compare).toEqual({
      available: false,
      reason: 'Meta compara plantillas con al menos 1.000 envíos cada una',
      arms: [],
    });
  });
});
