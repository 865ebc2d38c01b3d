import { and, eq, sql } from 'drizzle-orm';
import type { CampaignWriteback, KommoPipelineInfo, WritebackSettings, WritebackSettingsView } from '@masivo/contract/kommo-writeback';
import type { AppContext } from '../../context';
import { campaigns } from '../../db/schema/campaigns';
import { kommoAccounts } from '../../db/schema/kommo';
import { kommoWritebacks } from '../../db/schema/kommo-writeback';
import { rowsOf } from '../../db/sql';
import { kommoDeadline } from '../../integrations/kommo/errors';
import { badRequest, notFound, UnreadableTokenError } from '../../lib/errors';
import { ACCOUNT_NOT_FOUND } from '../kommo-accounts/kommo-accounts-service';

export const CAMPAIGN_NOT_FOUND = 'Campaña no encontrada';
export const STAGE_NOT_FOUND = 'La etapa elegida no existe en ese embudo de Kommo. Vuelve a cargar los embudos y elige otra.';
/** The most a form waits on Kommo for the pipelines. */
const PIPELINES_TIMEOUT_MS = 20_000;

type AccountRow = typeof kommoAccounts.$inferSelect;

export function toSettingsView(row: AccountRow): WritebackSettingsView {
  return {
    enabled: row.writebackEnabled,
    notes: row.writebackNotes,
    opt_out_tag: row.writebackOptOutTag,
    reply_tag: row.writebackReplyTag,
    pipeline_id: row.writebackPipelineId,
    status_id: row.writebackStatusId,
    enabled_at: row.writebackEnabledAt ? row.writebackEnabledAt.toISOString() : null,
  };
}

/** Settings, pipelines and per-campaign progress of the write-back to Kommo; every query is the user's own. */
export function createWritebackService(ctx: AppContext) {
  const { db } = ctx;

  async function account(userId: number, id: number) {
    const [row] = await db.select().from(kommoAccounts).where(and(eq(kommoAccounts.id, id), eq(kommoAccounts.userId, userId)));
    if (!row) throw notFound(ACCOUNT_NOT_FOUND);
    return row;
  }

  function creds(row: AccountRow) {
    try {
      return { subdomain: row.subdomain, accessToken: ctx.secrets.open(row.accessTokenEnc) };
    } catch {
      throw new UnreadableTokenError();
    }
  }

  async function pipelines(row: AccountRow): Promise<KommoPipelineInfo[]> {
    try {
      const list = await ctx.kommo.interactiveWrite.pipelines(creds(row), AbortSignal.timeout(PIPELINES_TIMEOUT_MS));
      return list
        .filter((p) => !p.isArchive)
        .map((p) => ({ id: p.id, name: p.name, is_main: p.isMain, statuses: p.statuses.map((s) => ({ id: s.id, name: s.name })) }));
    } catch (err) {
      throw kommoDeadline(err);
    }
  }

  return {
    async settings(userId: number, accountId: number): Promise<WritebackSettingsView> {
      return toSettingsView(await account(userId, accountId));
    },

    async pipelines(userId: number, accountId: number): Promise<KommoPipelineInfo[]> {
      return pipelines(await account(userId, accountId));
    },

    async updateSettings(userId: number, accountId: number, input: WritebackSettings): Promise<WritebackSettingsView> {
      const row = await account(userId, accountId);
      if (input.pipeline_id !== null && input.status_id !== null) {
        const changed = input.pipeline_id !== row.writebackPipelineId || input.status_id !== row.writebackStatusId;
        if (changed) {
          // A stage is checked against Kommo when chosen: a typo never waits for the first reply to fail.
          const list = await pipelines(row);
          const pipeline = list.find((p) => p.id === input.pipeline_id);
          if (!pipeline?.statuses.some((s) => s.id === input.status_id)) throw badRequest(STAGE_NOT_FOUND);
        }
      }
      const [updated] = await db
        .update(kommoAccounts)
        .set({
          writebackEnabled: input.enabled,
          // Switching on starts the clock: campaigns completed from now on are written back.
          writebackEnabledAt: input.enabled ? (row.writebackEnabled && row.writebackEnabledAt ? row.writebackEnabledAt : new Date()) : null,
          writebackNotes: input.notes,
          writebackOptOutTag: input.opt_out_tag,
          writebackReplyTag: input.reply_tag,
          writebackPipelineId: input.pipeline_id,
          writebackStatusId: input.status_id,
          updatedAt: new Date(),
        })
        .where(and(eq(kommoAccounts.id, accountId), eq(kommoAccounts.userId, userId)))
        .returning();
      if (!updated) throw notFound(ACCOUNT_NOT_FOUND);
      return toSettingsView(updated);
    },

    async progress(userId: number, campaignId: number): Promise<CampaignWriteback> {
      const [campaign] = await db
        .select({ id: campaigns.id, status: campaigns.status, kommoAccountId: campaigns.kommoAccountId })
        .from(campaigns)
        .where(and(eq(campaigns.id, campaignId), eq(campaigns.userId, userId)));
      if (!campaign) throw notFound(CAMPAIGN_NOT_FOUND);
      const [wb] = await db
        .select()
        .from(kommoWritebacks)
        .where(and(eq(kommoWritebacks.campaignId, campaignId), eq(kommoWritebacks.userId, userId)));
      const empty = { total: 0, done: 0, failed: 0, late_done: 0, late_pending: 0, last_error: null, retry_at: null, failures: [] };
      if (!wb) {
        let enabled = false;
        if (campaign.kommoAccountId !== null) {
          const [k] = await db
            .select({ enabled: kommoAccounts.writebackEnabled })
            .from(kommoAccounts)
            .where(and(eq(kommoAccounts.id, campaign.kommoAccountId), eq(kommoAccounts.userId, userId)));
          enabled = k?.enabled ?? false;
        }
        // A completed campaign with write-back on is taken into the queue within a second.
        return { state: enabled ? 'waiting' : 'off', ...empty };
      }
      const [counts] = await rowsOf<{ total: number; done: number; failed: number; late_done: number; late_pending: number; pending: number }>(db, sql`
        select count(*) filter (where kind = 'result')::int as total,
               count(*) filter (where kind = 'result' and stage = 'done')::int as done,
               count(*) filter (where stage = 'failed')::int as failed,
               count(*) filter (where kind <> 'result' and stage = 'done')::int as late_done,
               count(*) filter (where kind <> 'result' and stage not in ('done', 'failed'))::int as late_pending,
               count(*) filter (where stage not in ('done', 'failed'))::int as pending
        from kommo_writeback_items where campaign_id = ${campaignId} and user_id = ${userId}`);
      const failures = await rowsOf<{ reason: string; count: number }>(db, sql`
        select error as reason, count(*)::int as count from kommo_writeback_items
        where campaign_id = ${campaignId} and user_id = ${userId} and stage = 'failed'
        group by error order by count(*) desc, error limit 5`);
      const pending = Number(counts.pending) > 0;
      const [k] = await db
        .select({ enabled: kommoAccounts.writebackEnabled })
        .from(kommoAccounts)
        .where(and(eq(kommoAccounts.id, wb.kommoAccountId), eq(kommoAccounts.userId, userId)));
      return {
        state: !pending ? 'done' : !k?.enabled ? 'paused' : wb.lastError ? 'retrying' : 'running',
        total: Number(counts.total),
        done: Number(counts.done),
        failed: Number(counts.failed),
        late_done: Number(counts.late_done),
        late_pending: Number(counts.late_pending),
        last_error: pending ? wb.lastError : null,
        retry_at: pending && wb.retryAt ? wb.retryAt.toISOString() : null,
        failures: failures.map((f) => ({ reason: f.reason ?? 'Motivo desconocido', count: Number(f.count) })),
      };
    },
  };
}
