import { and, asc, desc, eq } from 'drizzle-orm';
import type {
  SyncAllResult,
  SyncResult,
  Template,
  TemplateStatusSummary,
} from '@masivo/contract/templates';
import { createTemplateSchema, metaLanguageCode } from '@masivo/contract/templates';
import { templateVariableSlots } from '@masivo/contract/variables';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { kommoAccounts, kommoCustomFields, templates, whatsappAccounts } from '../../db/schema/index';
import { GraphApiError } from '../../integrations/whatsapp/graph-errors';
import { deleteTemplate } from '../../integrations/whatsapp/message-templates';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors';
import { createWhatsAppAccountService } from '../whatsapp-accounts/whatsapp-account-service';
import { metaComponents } from './meta-components';
import { syncAccountTemplates } from './template-sync';
import { submitTemplate } from './template-submission';
import { setTemplateTtl } from './template-ttl';
import { toTemplate, type TemplateRow } from './template-view';

type CreateInput = z.output<typeof createTemplateSchema>;

const NOT_FOUND = 'Plantilla no encontrada';

export function createTemplateService(ctx: AppContext) {
  const { db, secrets } = ctx;
  const accounts = createWhatsAppAccountService(ctx);

  async function owned(userId: number, id: number): Promise<TemplateRow> {
    const [row] = await db
      .select()
      .from(templates)
      .where(and(eq(templates.id, id), eq(templates.userId, userId)))
      .limit(1);
    if (!row) throw notFound(NOT_FOUND);
    return row;
  }

  async function assertKommoAccount(userId: number, kommoAccountId: number) {
    const [row] = await db
      .select({ id: kommoAccounts.id })
      .from(kommoAccounts)
      .where(and(eq(kommoAccounts.id, kommoAccountId), eq(kommoAccounts.userId, userId)));
    if (!row) throw notFound('Cuenta Kommo no encontrada');
  }

  return {
    owned,

    async sync(userId: number, whatsappAccountId: number): Promise<SyncResult> {
      const account = await accounts.owned(userId, whatsappAccountId);
      return syncAccountTemplates(db, secrets, ctx.graph, account);
    },

    /** Every account of the user, one after the other; a failing account does not stop the rest. */
    /** Every number of the organisation, or only `numbers` (a scoped member's). */
    async syncAll(userId: number, numbers: readonly number[] | null = null): Promise<SyncAllResult> {
      const rows = (
        await db.select().from(whatsappAccounts).where(eq(whatsappAccounts.userId, userId)).orderBy(asc(whatsappAccounts.id))
      ).filter((a) => !numbers || numbers.includes(a.id));
      if (!rows.length) throw badRequest('No hay cuentas de WhatsApp disponibles');
      const results: SyncAllResult['results'] = [];
      for (const account of rows) {
        const base = { whatsapp_account_id: account.id, account_name: account.name };
        try {
          results.push({ ...base, ...(await syncAccountTemplates(db, secrets, ctx.graph, account)) });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          results.push({ ...base, success: false, synced: 0, updated: 0, deleted: 0, errors: [], error: err.message });
        }
      }
      return { success: results.every((r) => r.success), results };
    },

    /** The list (and the status summary built on it) tolerates lag: it reads the replica (`readDb`). */
    async listByAccount(userId: number, whatsappAccountId: number): Promise<Template[]> {
      await accounts.owned(userId, whatsappAccountId);
      const rows = await ctx.readDb
        .select()
        .from(templates)
        .where(and(eq(templates.whatsappAccountId, whatsappAccountId), eq(templates.userId, userId)))
        .orderBy(desc(templates.createdAt), desc(templates.id));
      return rows.map(toTemplate);
    },

    async get(userId: number, id: number): Promise<Template> {
      return toTemplate(await owned(userId, id));
    },

    async statusSummary(userId: number, whatsappAccountId: number): Promise<TemplateStatusSummary> {
      const list = await this.listByAccount(userId, whatsappAccountId);
      const byStatus: Record<string, number> = {};
      for (const t of list) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
      return {
        whatsapp_account_id: whatsappAccountId,
        total: list.length,
        by_status: byStatus,
        templates: list.map((t) => ({
          id: t.id,
          name: t.name,
          language: t.language,
          status: t.status,
          rejection_reason: t.rejection_reason ?? t.submission_error,
        })),
      };
    },

    async variables(userId: number, id: number) {
      const row = await owned(userId, id);
      return { templateId: row.id, variables: templateVariableSlots(row.components, row.parameterFormat) };
    },

    async create(userId: number, input: CreateInput, createdBy: number | null = null) {
      const account = await accounts.owned(userId, input.whatsapp_account_id);
      if (input.kommo_account_id) await assertKommoAccount(userId, input.kommo_account_id);
      const name = input.name.toLowerCase(); // Meta only accepts lowercase names.
      const language = metaLanguageCode(input.language);
      const [row] = await db
        .insert(templates)
        .values({
          createdBy,
          userId,
          whatsappAccountId: account.id,
          // Spec: the Kommo account is taken from the WhatsApp account when it is linked.
          kommoAccountId: account.kommoAccountId ?? input.kommo_account_id ?? null,
          name,
          language,
          category: input.category,
          status: 'draft',
          components: metaComponents(input),
          parameterFormat: input.parameter_format,
          messageSendTtlSeconds: input.category === 'marketing' ? (input.message_send_ttl_seconds ?? null) : null,
        })
        .onConflictDoNothing()
        .returning();
      if (!row) throw conflict(`Ya existe una plantilla "${name}" en idioma ${language} para esta cuenta`);
      return withSubmission(await submitTemplate(db, secrets, ctx.graph, account, row));
    },

    async submit(userId: number, id: number) {
      const row = await owned(userId, id);
      if (row.metaId) {
        throw conflict(`La plantilla ya fue enviada a Facebook (estado: ${row.status}). Para corregirla, elimínala y créala de nuevo.`);
      }
      const account = await accounts.owned(userId, row.whatsappAccountId);
      return withSubmission(await submitTemplate(db, secrets, ctx.graph, account, row));
    },

    /** «Vencimiento» of a marketing template (template-ttl.ts). */
    async setTtl(userId: number, id: number, ttlSeconds: number | null) {
      const row = await owned(userId, id);
      const account = await accounts.owned(userId, row.whatsappAccountId);
      return toTemplate(await setTemplateTtl(db, secrets, ctx.graph, account, row, ttlSeconds));
    },

    /** Deletes at Meta (by name and hsm_id, so other languages stay) and then locally. */
    async remove(userId: number, id: number) {
      const row = await owned(userId, id);
      if (row.metaId) {
        const account = await accounts.owned(userId, row.whatsappAccountId);
        try {
          await deleteTemplate(ctx.graph, secrets.open(account.accessTokenEnc), account.businessAccountId, row.name, row.metaId);
        } catch (err) {
          // Already gone at Meta: the local copy is all that is left to remove.
          if (!(err instanceof GraphApiError && isMissingAtMeta(err))) throw err;
        }
      }
      try {
        await db.delete(templates).where(and(eq(templates.id, id), eq(templates.userId, userId)));
      } catch (err) {
        const e = err as { code?: string; cause?: { code?: string } };
        if (e?.code === '23503' || e?.cause?.code === '23503') {
          throw conflict('No se puede eliminar la plantilla: la usan campañas existentes.');
        }
        throw err;
      }
      return { success: true as const, message: 'Template eliminado exitosamente' };
    },

    async kommoCustomFields(userId: number, kommoAccountId: number) {
      await assertKommoAccount(userId, kommoAccountId);
      const rows = await db
        .select({ id: kommoCustomFields.fieldId, name: kommoCustomFields.name, type: kommoCustomFields.type })
        .from(kommoCustomFields)
        .where(and(eq(kommoCustomFields.accountId, kommoAccountId), eq(kommoCustomFields.userId, userId)))
        .orderBy(asc(kommoCustomFields.name));
      return rows;
    },
  };
}

function withSubmission(outcome: Awaited<ReturnType<typeof submitTemplate>>) {
  const { success, message } = outcome;
  return { success, message, submission: { success, message }, template: toTemplate(outcome.template) };
}

/** Graph answers "does not exist" for a template deleted elsewhere (code 100, HTTP 400/404). */
function isMissingAtMeta(err: GraphApiError): boolean {
  return err.httpStatus === 404 || err.subcode === 2593002 || (err.code === 100 && /not (be )?found|does not exist|no existe/i.test(err.metaMessage ?? ''));
}
