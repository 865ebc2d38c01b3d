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
 * Sends a locally stored template to Meta for approval. When Meta refuses, the template
 * stays as a draft with the refusal kept in submission_error, so the screen can say why and
 * the operator can resubmit; the outcome is returned, never thrown, for Graph errors.
 */
export async function submitTemplate(
  db: Db,
  secrets: SecretBox,
  graph: GraphClient,
  account: WhatsAppAccountRow,
  template: TemplateRow,
): Promise<{ success: boolean; message: string; template: TemplateRow }> {
  try {
    const res = await createTemplate(graph, secrets.open(account.accessTokenEnc), account.businessAccountId, {
      name: template.name,
      language: template.language,
      category: template.category.toUpperCase(),
      components: submittable(template.components),
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
    const [row] = await db
      .update(templates)
      .set({ submissionError: err.message, updatedAt: new Date() })
      .where(eq(templates.id, template.id))
      .returning();
    return { success: false, message: err.message, template: row ?? template };
  }
}
