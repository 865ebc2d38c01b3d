import { and, eq } from 'drizzle-orm';
import { campaignIncompatibility, templateVariableSlots, unmappedSlots } from '@masivo/contract/variables';
import type { Db } from '../../db/client';
import { templates, templateVariableMappings } from '../../db/schema/index';
import { badRequest, notFound } from '../../lib/errors';

export type TemplateRow = typeof templates.$inferSelect;
export interface ReadyMapping {
  templateVariable: string;
  sourceType: string;
  sourceField: string;
  defaultValue: string;
}

/**
 * The check a campaign runs before it uses a template: the template is the user's (else
 * 404), belongs to the chosen WhatsApp account, is approved by Meta and has every variable
 * mapped to a contact field. Returns what the sender needs to build each message.
 */
export async function assertTemplateUsable(
  db: Db,
  userId: number,
  templateId: number,
  whatsappAccountId: number,
  /**
   * `partialMappings`: a campaign with explicit recipients (0039) may leave slots unmapped,
   * because every recipient brings its own value for them (checked when they are added).
   */
  opts: { partialMappings?: boolean } = {},
): Promise<{ template: TemplateRow; mappings: ReadyMapping[] }> {
  const [template] = await db
    .select()
    .from(templates)
    .where(and(eq(templates.id, templateId), eq(templates.userId, userId)))
    .limit(1);
  if (!template) throw notFound('Plantilla no encontrada');
  if (template.whatsappAccountId !== whatsappAccountId) {
    throw badRequest('La plantilla no pertenece a la cuenta de WhatsApp seleccionada');
  }
  if (template.status !== 'approved') throw badRequest('La plantilla no está aprobada');
  const incompatible = campaignIncompatibility(template.components);
  if (incompatible) throw badRequest(incompatible);

  const rows = await db
    .select({
      templateVariable: templateVariableMappings.templateVariable,
      sourceType: templateVariableMappings.sourceType,
      sourceField: templateVariableMappings.sourceField,
      defaultValue: templateVariableMappings.defaultValue,
    })
    .from(templateVariableMappings)
    .where(and(eq(templateVariableMappings.templateId, template.id), eq(templateVariableMappings.userId, userId)));
  const missing = unmappedSlots(templateVariableSlots(template.components, template.parameterFormat), rows);
  if (missing.length && !opts.partialMappings) {
    throw badRequest(`La plantilla tiene variables sin configurar: ${missing.map((s) => s.label).join(', ')}`);
  }
  return { template, mappings: rows };
}
