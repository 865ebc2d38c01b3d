import { and, eq } from 'drizzle-orm';
import { TTL_ONLY_MARKETING_MESSAGE } from '@masivo/contract/marketing-messages';
import type { Db } from '../../db/client';
import { templates } from '../../db/schema/index';
import type { GraphClient } from '../../integrations/whatsapp/graph-client';
import { updateTemplateTtl } from '../../integrations/whatsapp/message-templates';
import { badRequest } from '../../lib/errors';
import type { SecretBox } from '../../lib/secret-box';
import type { WhatsAppAccountRow } from '../whatsapp-accounts/account-view';
import type { TemplateRow } from './template-view';

/**
 * «Vencimiento» of a MARKETING template (`message_send_ttl_seconds`, 12 h to 30 days; the
 * contract checks the range): changed at Meta first when the template is there (POST
 * /{template_id}), then stored. A draft keeps it until it is submitted. Meta honours it only for
 * sends by the Marketing Messages API.
 */
export async function setTemplateTtl(
  db: Db,
  secrets: SecretBox,
  graph: GraphClient,
  account: WhatsAppAccountRow,
  template: TemplateRow,
  ttlSeconds: number | null,
): Promise<TemplateRow> {
  if (template.category.toLowerCase() !== 'marketing') throw badRequest(TTL_ONLY_MARKETING_MESSAGE);
  if (template.metaId) await updateTemplateTtl(graph, secrets.open(account.accessTokenEnc), template.metaId, ttlSeconds);
  const [row] = await db
    .update(templates)
    .set({ messageSendTtlSeconds: ttlSeconds, updatedAt: new Date() })
    .where(and(eq(templates.id, template.id), eq(templates.userId, template.userId)))
    .returning();
  return row ?? template;
}
