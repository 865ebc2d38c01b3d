import { sql, type SQL } from 'drizzle-orm';
import type { CreateCampaignInput } from '@masivo/contract/campaigns';
import type { Db } from '../../db/client';
import type { SplitTestConfig } from '../../db/schema/campaigns';
import { badRequest } from '../../lib/errors';
import { assertTemplateUsable } from '../variables/template-readiness';

/**
 * "Prueba A/B" (split test): the settings checked at creation, the arm each frozen recipient
 * gets, and the claim's filter that holds the rest of the audience until the decision
 * (split-test-decision.ts). The screen's arms and result are split-test-view.ts.
 */

/**
 * The split test of a new campaign, or null: variants and ab_test come together, the first
 * variant is the campaign's own template, and every variant's template is usable on the number
 * (approved, mapped), as the campaign's own is.
 */
export async function splitTestConfig(
  db: Db,
  userId: number,
  data: Pick<CreateCampaignInput, 'template_id' | 'variants' | 'ab_test' | 'whatsapp_account_id'>,
  opts: { partialMappings?: boolean } = {},
): Promise<SplitTestConfig | null> {
  if (!data.variants && !data.ab_test) return null;
  if (!data.variants || !data.ab_test) throw badRequest('Una prueba A/B necesita las variantes (variants) y su configuración (ab_test)');
  if (Number(data.variants[0]?.template_id) !== Number(data.template_id)) throw badRequest('La variante A debe ser la plantilla de la campaña');
  const variants: SplitTestConfig['variants'] = [];
  for (const v of data.variants) {
    const { template } = await assertTemplateUsable(db, userId, Number(v.template_id), Number(data.whatsapp_account_id), opts);
    variants.push({ template_id: template.id, template_name: template.name, template_language: template.language });
  }
  const ab = data.ab_test;
  return { variants, share: Number(ab.share), metric: ab.metric, wait_seconds: Number(ab.wait_seconds), no_winner: ab.no_winner };
}

/**
 * The arm of one recipient as the audience freezes (an expression over the classifier's row:
 * `phone_key`, `contact_id`, `reason`). u = the first 32 bits of md5(person key + ':' + campaign
 * id) scaled to [0, 1): the same person always lands in the same place, whatever the order or
 * a retry. u < share puts the person in the test slice, in arm ⌊u / share · arms⌋; everyone else
 * stays null until the decision gives them the winner.
 */
export function frozenVariantSql(split: SplitTestConfig | null, campaignId: number): SQL {
  if (!split) return sql`null::smallint`;
  const arms = split.variants.length;
  const u = splitBucketSql(sql`coalesce(phone_key, contact_id::text)`, campaignId);
  return sql`case when reason is null and ${u} < ${split.share}::float8
    then least(${arms - 1}::int, floor(${u} / ${split.share}::float8 * ${arms}::int)::int)::smallint end`;
}

/**
 * When a frozen row is first due: the rest of a split test's audience (no arm, not skipped) waits
 * at 'infinity' until the decision gives it the winner and makes it due now. So no range scan of
 * due rows (the claim's, the budget's and the sending hours' checks) ever walks the held rows.
 */
export function frozenDueSql(split: SplitTestConfig | null, campaignId: number): SQL {
  if (!split) return sql`now()`;
  return sql`case when reason is null and ${frozenVariantSql(split, campaignId)} is null then 'infinity'::timestamptz else now() end`;
}

/** The person's place in [0, 1) for the campaign (the same formula as `splitBucket`, in SQL). */
export const splitBucketSql = (personKey: SQL, campaignId: number): SQL =>
  sql`(('x' || substr(md5(${personKey} || ':' || ${campaignId}::text), 1, 8))::bit(32)::bigint::float8 / 4294967296.0)`;

/** When a split test's decision is due: the start (the freeze) plus the operator's wait. */
export const splitDecideAtSql = sql`case when split_test is not null
  then now() + make_interval(secs => (split_test->>'wait_seconds')::int) end`;

/**
 * The claim's set filter (`r` = campaign_recipients): while a split test waits for its decision,
 * only the rows with an arm are claimable (the held rows also wait at 'infinity', frozenDueSql,
 * so the claim's range never reaches them). One uncorrelated sub-select per claim statement.
 */
export const claimableArmSql = (campaignId: number): SQL =>
  sql`(r.variant is not null or not exists (select 1 from campaigns st where st.id = ${campaignId} and st.split_test is not null))`;
