import { and, eq, isNotNull, sql } from 'drizzle-orm';
import type { SyncResult } from '@masivo/contract/templates';
import type { Db } from '../../db/client';
import { templates, type TemplateComponent } from '../../db/schema/index';
import type { GraphClient } from '../../integrations/whatsapp/graph-client';
import { listAllTemplates, type GraphTemplate } from '../../integrations/whatsapp/message-templates';
import type { SecretBox } from '../../lib/secret-box';
import type { WhatsAppAccountRow } from '../whatsapp-accounts/account-view';
import { followTemplateStatus } from './template-risk';
import { localTemplateStatus, rejectionReasonOf } from './template-status';

/**
 * Brings the local copy of one account's templates in line with Meta: every template Meta
 * lists is inserted or updated (name, language, category, status, components, rejection
 * reason); templates Meta no longer has are removed. Templates never accepted by Meta
 * (no meta_id: a refused submission) stay, so the operator can resubmit them.
 * A failing Graph call throws (GraphApiError); one bad item is reported and skipped.
 */
export async function syncAccountTemplates(
  db: Db,
  secrets: SecretBox,
  graph: GraphClient,
  account: WhatsAppAccountRow,
): Promise<SyncResult> {
  const remote = await listAllTemplates(graph, secrets.open(account.accessTokenEnc), account.businessAccountId);
  const result: SyncResult = { success: true, synced: 0, updated: 0, deleted: 0, errors: [] };
  const seenMetaIds: string[] = [];

  for (const item of remote) {
    try {
      const values = localValues(item);
      seenMetaIds.push(values.metaId);
      const changed = await db
        .insert(templates)
        .values({ ...values, userId: account.userId, whatsappAccountId: account.id, kommoAccountId: account.kommoAccountId })
        .onConflictDoUpdate({
          target: [templates.whatsappAccountId, templates.name, templates.language],
          set: {
            metaId: sql`excluded.meta_id`,
            category: sql`excluded.category`,
            status: sql`excluded.status`,
            components: sql`excluded.components`,
            rejectionReason: sql`excluded.rejection_reason`,
            parameterFormat: sql`excluded.parameter_format`,
            qualityScore: sql`excluded.quality_score`,
            submissionError: null,
            updatedAt: new Date(),
          },
          // Only rows that really differ count as updated (and get a new updated_at).
          setWhere: sql`(${templates.metaId}, ${templates.category}, ${templates.status}, ${templates.components}, ${templates.rejectionReason}, ${templates.submissionError}, ${templates.parameterFormat}, ${templates.qualityScore})
            is distinct from (excluded.meta_id, excluded.category, excluded.status, excluded.components, excluded.rejection_reason, null::text, excluded.parameter_format, excluded.quality_score)`,
        })
        .returning({ id: templates.id, status: templates.status, inserted: sql<boolean>`(xmax = 0)` });
      if (!changed.length) continue;
      if (changed[0]!.inserted) result.synced++;
      else result.updated++;
      // A status Meta changed meanwhile (paused, disabled, back to approved): campaigns follow.
      if (!changed[0]!.inserted) await followTemplateStatus(db, [changed[0]!.id], changed[0]!.status, null);
    } catch (err) {
      result.errors.push(`${item?.name ?? 'plantilla sin nombre'} (${item?.language ?? '?'}): ${(err as Error).message}`);
    }
  }

  const gone = await db
    .delete(templates)
    .where(
      and(
        eq(templates.whatsappAccountId, account.id),
        isNotNull(templates.metaId),
        seenMetaIds.length ? sql`${templates.metaId} <> all(${toTextArray(seenMetaIds)})` : undefined,
      ),
    )
    .returning({ id: templates.id });
  result.deleted = gone.length;
  return result;
}

function localValues(item: GraphTemplate) {
  if (!item?.name || !item.language || !item.id) throw new Error('Meta devolvió una plantilla sin id, nombre o idioma');
  return {
    metaId: String(item.id),
    name: item.name,
    language: item.language,
    // Spec §3: categories are shown lowercase (marketing, utility, authentication).
    category: (item.category ?? 'utility').toLowerCase(),
    status: localTemplateStatus(item.status),
    components: (item.components ?? []).map(toComponent),
    rejectionReason: rejectionReasonOf(item.rejected_reason),
    parameterFormat: String(item.parameter_format ?? 'POSITIONAL').toUpperCase() === 'NAMED' ? 'NAMED' : 'POSITIONAL',
    qualityScore: typeof item.quality_score?.score === 'string' ? item.quality_score.score.toUpperCase().slice(0, 20) : null,
  };
}

/**
 * Every key Meta sent is kept (buttons with url/phone_number/example, carousel cards,
 * limited_time_offer, ...); only type and format are upper-cased, as Meta spells them in
 * listings, so lookups by type never miss a lower-case variant.
 */
function toComponent(c: NonNullable<GraphTemplate['components']>[number]): TemplateComponent {
  return {
    ...c,
    type: String(c.type ?? '').toUpperCase() as TemplateComponent['type'],
    ...(c.format && { format: String(c.format).toUpperCase() }),
  };
}

/** A text[] parameter built from bound values, so the ids never enter the SQL text. */
function toTextArray(values: string[]) {
  return sql`array[${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )}]::text[]`;
}
