import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { templates } from '../../db/schema/index';
import type { GraphClient } from '../../integrations/whatsapp/graph-client';
import { GraphApiError } from '../../integrations/whatsapp/graph-errors';
import { createTemplate } from '../../integrations/whatsapp/message-templates';
import type { SecretBox } from '../../lib/secret-box';
import type { WhatsAppAccountRow } from '../whatsapp-accounts/account-view';
import { submittable } from './meta-components';
import { localTemplateStatus } from './template-status';
import type { TemplateRow } from './template-view';

export const SUBMITTED_MESSAGE = 'Plantilla creada y enviada a Facebook para aprobación exitosamente';

/**
 * Sends a locally stored template to Meta for approval. When Meta refuses the template itself
 * (a 400: its content or name), it becomes `rejected` with Meta's reason, as a refusal after
 * review would. When the call fails for another reason (rate limit, Meta down) it stays a
 * draft with the error in submission_error. Either way the operator can resubmit; the outcome
 * is returned, never thrown, for Graph errors.
 */
export async function submitTemplate(
  db: Db,
  secrets: SecretBox,
  graph: GraphClient,
  account: WhatsAppAccountRow,
  template: TemplateRow,
): Promise<{ success: boolean; message: string; template: TemplateRow }> {
  if (template.status === 'rejected' && !template.metaId) {
    // A resubmission of a local refusal starts again from draft, so the update below applies.
    await db.update(templates).set({ status: 'draft', rejectionReason: null }).where(eq(templates.id, template.id));
  }
  try {
    const res = await createTemplate(graph, secrets.open(account.accessTokenEnc), account.businessAccountId, {
      name: template.name,
      language: template.language,
      category: template.category.toUpperCase(),
      components: submittable(template.components),
      parameter_format: template.parameterFormat === 'NAMED' ? 'NAMED' : 'POSITIONAL',
      ...(template.messageSendTtlSeconds ? { message_send_ttl_seconds: template.messageSendTtlSeconds } : {}),
    });
    const [row] = await db
      .update(templates)
      .set({
        metaId: String(res.id),
        // A status webhook may already have moved the draft on (approval can be quick).
        status: sql`case when ${templates.status} = 'draft' then ${localTemplateStatus(res.status ?? 'PENDING')} else ${templates.status} end`,
        ...(res.category && { category: res.category.toLowerCase() }),
        submissionError: null,
        rejectionReason: sql`case when ${templates.status} = 'draft' then null else ${templates.rejectionReason} end`,
        updatedAt: new Date(),
      })
      .where(eq(templates.id, template.id))
      .returning();
    return { success: true, message: SUBMITTED_MESSAGE, template: row ?? template };
  } catch (err) {
    if (!(err instanceof GraphApiError)) throw err;
    const refused = err.statusCode === 400;
    const [row] = await db
      .update(templates)
      .set(
        refused
          ? { status: 'rejected', rejectionReason: err.message, submissionError: null, updatedAt: new Date() }
          : { status: 'draft', submissionError: err.message, updatedAt: new Date() },
      )
      .where(eq(templates.id, template.id))
      .returning();
    return { success: false, message: err.message, template: row ?? template };
  }
}
