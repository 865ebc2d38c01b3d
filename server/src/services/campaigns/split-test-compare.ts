import { sql } from 'drizzle-orm';
import { META_COMPARE_MIN_SENDS, variantLabel, type MetaCompare } from '@masivo/contract/split-test';
import type { AppContext } from '../../context';
import type { SplitTestConfig } from '../../db/schema/campaigns';
import { jsonParam, rowsOf } from '../../db/sql';
import { compareTemplates } from '../../integrations/whatsapp/template-compare';
import { loadSendingAccount } from '../whatsapp-accounts/account-secrets';
import { allArms, armCounts } from './split-test-arms';

/** Campaigns asked about per scheduler tick (Meta allows few management calls an hour). */
const PER_TICK = 2;

/**
 * The block-rate guardrail of a finished split test: once the campaign completed, Meta's
 * template comparison is asked ONCE (its answer, or why there is none, is kept in the result).
 * Meta compares two templates with at least 1,000 sends each, over a 7-day lookback; so only a
 * two-variant test whose arms both passed 1,000 sends, completed within the last 7 days, asks.
 * Returns the campaigns it settled.
 */
export async function compareFinishedSplitTests(ctx: AppContext): Promise<number[]> {
  const due = await rowsOf<{ id: number; whatsapp_account_id: number | null; split_test: SplitTestConfig | string }>(
    ctx.db,
    sql`select id, whatsapp_account_id, split_test from campaigns
        where split_test is not null and split_result is not null and status = 'completed'
          and not (split_result ? 'meta_compare') and completed_at > now() - interval '7 days'
        order by completed_at limit ${PER_TICK}`,
  );
  const done: number[] = [];
  for (const row of due) {
    const config: SplitTestConfig = typeof row.split_test === 'string' ? JSON.parse(row.split_test) : row.split_test;
    const compare = await comparisonOf(ctx, Number(row.id), row.whatsapp_account_id, config);
    await ctx.db.execute(
      sql`update campaigns set split_result = split_result || jsonb_build_object('meta_compare', ${jsonParam(compare)})
          where id = ${row.id} and not (split_result ? 'meta_compare')`,
    );
    done.push(Number(row.id));
  }
  return done;
}

const none = (reason: string): MetaCompare => ({ available: false, reason, arms: [] });

async function comparisonOf(ctx: AppContext, campaignId: number, whatsappAccountId: number | null, config: SplitTestConfig): Promise<MetaCompare> {
  if (config.variants.length !== 2) return none('Meta compara solo dos plantillas a la vez');
  const arms = allArms(await armCounts(ctx.db, campaignId, false), 2);
  if (arms.some((a) => a.sent < META_COMPARE_MIN_SENDS)) return none('Meta compara plantillas con al menos 1.000 envíos cada una');
  if (whatsappAccountId === null) return none('La campaña ya no tiene cuenta de WhatsApp');
  const ids = config.variants.map((v) => v.template_id);
  const metas = await rowsOf<{ id: number; meta_id: string | null }>(ctx.db, sql`select id, meta_id from templates where id in (${ids[0]}, ${ids[1]})`);
  const metaOf = (id: number) => metas.find((m) => Number(m.id) === id)?.meta_id ?? null;
  const [a, b] = [metaOf(ids[0]), metaOf(ids[1])];
  if (!a || !b) return none('Alguna plantilla no tiene su identificador de Meta');
  try {
    const account = await loadSendingAccount(ctx.db, ctx.secrets, whatsappAccountId);
    const cmp = await compareTemplates(ctx.graph, account.accessToken, a, b);
    const first = cmp.orderByBlockRate[0] ?? null;
    return {
      available: true,
      reason: null,
      arms: [a, b].map((metaId, i) => ({
        variant: variantLabel(i),
        fewer_blocks: first === metaId,
        sends: cmp.sends[metaId] ?? null,
        top_block_reason: cmp.topBlockReason[metaId] ?? null,
      })),
    };
  } catch (err) {
    return none(`Meta no dio la comparación: ${err instanceof Error ? err.message : String(err)}`);
  }
}
