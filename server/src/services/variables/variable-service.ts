import { and, asc, eq } from 'drizzle-orm';
import type { PreviewResponse, TestMappingResponse, VariableMapping } from '@masivo/contract/variables';
import {
  ANY_PLACEHOLDER_PATTERN,
  campaignIncompatibility,
  isTextHeader,
  parseLocation,
  saveMappingsSchema,
  templateVariableSlots,
  type MediaHeaderFormat,
  type TemplateVariableSlot,
} from '@masivo/contract/variables';
import type { z } from 'zod';
import type { AppContext } from '../../context';
import { contacts, kommoAccounts, templateVariableMappings, templates, whatsappAccounts } from '../../db/schema/index';
import { badRequest, notFound } from '../../lib/errors';
import type { TemplateRow } from '../templates/template-view';
import { availableVariables } from './available-variables';
import { checkMediaLink } from './media-link-check';
import { contactFieldValue, isMediaId, mappedValue, type ContactLike, type MappingLike } from './render';

type SaveInput = z.output<typeof saveMappingsSchema>;

export function createVariableService(ctx: AppContext) {
  const { db, database } = ctx;

  async function ownedTemplate(userId: number, templateId: number): Promise<TemplateRow> {
    const [row] = await db
      .select()
      .from(templates)
      .where(and(eq(templates.id, templateId), eq(templates.userId, userId)))
      .limit(1);
    if (!row) throw notFound('Plantilla no encontrada');
    return row;
  }

  async function mappingsOf(userId: number, templateId: number): Promise<VariableMapping[]> {
    return db
      .select({
        templateVariable: templateVariableMappings.templateVariable,
        sourceType: templateVariableMappings.sourceType,
        sourceField: templateVariableMappings.sourceField,
        defaultValue: templateVariableMappings.defaultValue,
      })
      .from(templateVariableMappings)
      .where(and(eq(templateVariableMappings.templateId, templateId), eq(templateVariableMappings.userId, userId)))
      .orderBy(asc(templateVariableMappings.templateVariable));
  }

  /** The template's Kommo account, else its WhatsApp account's, else all the user's accounts. */
  async function kommoAccountsFor(userId: number, template: TemplateRow): Promise<number[]> {
    if (template.kommoAccountId) return [template.kommoAccountId];
    const [wa] = await db
      .select({ kommoAccountId: whatsappAccounts.kommoAccountId })
      .from(whatsappAccounts)
      .where(eq(whatsappAccounts.id, template.whatsappAccountId));
    if (wa?.kommoAccountId) return [wa.kommoAccountId];
    const all = await db.select({ id: kommoAccounts.id }).from(kommoAccounts).where(eq(kommoAccounts.userId, userId));
    return all.map((a) => a.id);
  }

  return {
    async available(userId: number, kommoAccountId: number) {
      const [account] = await db
        .select({ id: kommoAccounts.id })
        .from(kommoAccounts)
        .where(and(eq(kommoAccounts.id, kommoAccountId), eq(kommoAccounts.userId, userId)));
      if (!account) throw notFound('Cuenta Kommo no encontrada');
      return availableVariables(database, userId, [account.id]);
    },

    async forTemplate(userId: number, templateId: number) {
      const template = await ownedTemplate(userId, templateId);
      return {
        templateId: template.id,
        variables: templateVariableSlots(template.components, template.parameterFormat),
        incompatibleReason: campaignIncompatibility(template.components),
        availableVariables: await availableVariables(database, userId, await kommoAccountsFor(userId, template)),
        mappings: await mappingsOf(userId, template.id),
        optOutButtons: template.optOutButtons ?? [],
      };
    },

    async getMappings(userId: number, templateId: number) {
      await ownedTemplate(userId, templateId);
      return mappingsOf(userId, templateId);
    },

    /** Replaces the template's mappings as a whole, so a removed choice does not linger. */
    async saveMappings(userId: number, templateId: number, input: SaveInput) {
      const template = await ownedTemplate(userId, templateId);
      const slots = new Map(templateVariableSlots(template.components, template.parameterFormat).map((s) => [s.key, s]));
      const seen = new Set<string>();
      for (const m of input.mappings) {
        const slot = slots.get(m.templateVariable);
        if (!slot) throw badRequest(`La variable ${m.templateVariable} no existe en la plantilla`);
        if (seen.has(m.templateVariable)) throw badRequest(`La variable ${m.templateVariable} está repetida`);
        seen.add(m.templateVariable);
      }
      const optOut = [...new Set(input.optOutButtons)].sort((a, b) => a - b);
      const quickReplies = quickReplyIndexes(template.components);
      const notQuickReply = optOut.find((i) => !quickReplies.includes(i));
      if (notQuickReply !== undefined) throw badRequest(`El botón ${notQuickReply + 1} no es una respuesta rápida: solo esas pueden marcarse como baja`);
      // Every check (links included) runs before the transaction: nothing is half-saved.
      for (const m of input.mappings) await checkSlotValue(slots.get(m.templateVariable)!, m, ctx.config.MEDIA_ALLOW_PRIVATE_HOSTS);
      await db.transaction(async (tx) => {
        await tx.update(templates).set({ optOutButtons: optOut }).where(and(eq(templates.id, template.id), eq(templates.userId, userId)));
        await tx.delete(templateVariableMappings).where(eq(templateVariableMappings.templateId, template.id));
        if (input.mappings.length) {
          await tx.insert(templateVariableMappings).values(
            input.mappings.map((m) => ({
              userId,
              templateId: template.id,
              templateVariable: m.templateVariable,
              sourceType: m.sourceType,
              sourceField: m.sourceField,
              defaultValue: m.defaultValue,
            })),
          );
        }
      });
      return { success: true, message: 'Configuración de variables guardada exitosamente', mappings: await mappingsOf(userId, template.id) };
    },

    /**
     * sampleData keys are either variable keys (`variable_1`, `header_variable_1`, or "1"
     * for the body) giving the value directly, or contact fields (`first_name`,
     * `custom_fields.Ciudad`) that go through the saved mappings.
     */
    async preview(userId: number, templateId: number, sampleData: Record<string, string>): Promise<PreviewResponse> {
      const template = await ownedTemplate(userId, templateId);
      const mappings = await mappingsOf(userId, template.id);
      const contact = sampleContact(sampleData);
      const valueFor = (key: string, n: number, component: 'header' | 'body') => {
        const direct = sampleData[key] ?? (component === 'body' ? sampleData[String(n)] : undefined);
        if (direct !== undefined) return direct;
        const mapping = mappings.find((m) => m.templateVariable === key);
        if (!mapping) return undefined;
        return contactFieldValue(contact, mapping.sourceField) || mapping.defaultValue || undefined;
      };
      return renderTemplate(template, valueFor);
    },

    async test(userId: number, templateId: number, contactId: number): Promise<TestMappingResponse> {
      const template = await ownedTemplate(userId, templateId);
      const [row] = await db
        .select()
        .from(contacts)
        .where(and(eq(contacts.id, contactId), eq(contacts.userId, userId)))
        .limit(1);
      if (!row) throw notFound('Contacto no encontrado');
      const contact: ContactLike = {
        name: row.name,
        first_name: row.firstName,
        last_name: row.lastName,
        phone: row.phone ?? row.phoneRaw,
        email: row.email,
        custom_fields: row.customFields ?? {},
      };
      const mappings = await mappingsOf(userId, template.id);
      const values: Record<string, string> = {};
      const valueFor = (key: string) => {
        const mapping = mappings.find((m) => m.templateVariable === key) as MappingLike | undefined;
        if (!mapping) return undefined;
        return (values[key] = mappedValue(mapping, contact));
      };
      return { contactId: row.id, values, ...renderTemplate(template, valueFor) };
    },
  };
}

/** Meta's indexes of a template's quick-reply buttons. */
function quickReplyIndexes(components: TemplateRow['components']): number[] {
  const buttons = (components.find((c) => c.type.toUpperCase() === 'BUTTONS')?.buttons ?? []) as Array<{ type?: string } | null>;
  return buttons.flatMap((b, i) => (String(b?.type ?? '').toUpperCase() === 'QUICK_REPLY' ? [i] : []));
}

/** A contact built from preview sample data (unknown keys are custom fields). */
function sampleContact(sample: Record<string, string>): ContactLike {
  const custom: Record<string, string> = {};
  for (const [k, v] of Object.entries(sample)) custom[k.replace(/^custom_fields\./, '')] = v;
  return {
    name: sample.name ?? '',
    first_name: sample.first_name ?? '',
    last_name: sample.last_name ?? '',
    phone: sample.phone ?? null,
    email: sample.email ?? null,
    custom_fields: custom,
  };
}

/** Header, body and footer with placeholders filled; unfilled ones stay visible as written. */
function renderTemplate(
  template: TemplateRow,
  valueFor: (key: string, n: number, component: 'header' | 'body') => string | undefined,
): PreviewResponse {
  const slots = templateVariableSlots(template.components, template.parameterFormat);
  const fill = (text: string, component: 'header' | 'body') => {
    const prefix = component === 'header' ? 'header_variable_' : 'variable_';
    return text.replace(ANY_PLACEHOLDER_PATTERN, (whole, name: string) => {
      const slot = slots.find((s) => s.key === `${prefix}${name}`);
      return (slot && valueFor(slot.key, slot.placeholder, component)) ?? whole;
    });
  };
  const headerComponent = template.components.find(isTextHeader);
  const header = headerComponent?.text ? fill(headerComponent.text, 'header') : null;
  const body = fill(template.components.find((c) => c.type === 'BODY')?.text ?? '', 'body');
  const footer = template.components.find((c) => c.type === 'FOOTER')?.text ?? null;
  const media = slots.find((s) => s.key === 'header_media');
  const buttons = ((template.components.find((c) => c.type === 'BUTTONS')?.buttons ?? []) as Array<Record<string, unknown>>).map((b, index) => {
    const slot = slots.find((s) => s.component === 'button' && s.index === index);
    const value = slot ? valueFor(slot.key, slot.placeholder, 'body') ?? null : null;
    const type = String(b.type ?? '').toUpperCase();
    const url = typeof b.url === 'string' ? (value !== null ? b.url.replace(ANY_PLACEHOLDER_PATTERN, value) : b.url) : null;
    return { type, text: String(b.text ?? (type === 'COPY_CODE' ? 'Copiar código' : '')), value: type === 'URL' ? url : type === 'PHONE_NUMBER' ? String(b.phone_number ?? '') : value };
  });
  return {
    processedText: [header, body, footer].filter(Boolean).join('\n\n'),
    header,
    body,
    footer,
    headerMedia: media ? { format: media.format!, value: valueFor(media.key, 1, 'header') ?? null } : null,
    buttons,
  };
}

const MAX_COUPON = 15;

/** A saved value Meta would refuse is a Spanish 400 naming the slot. */
async function checkSlotValue(
  slot: TemplateVariableSlot,
  m: { sourceType: string; defaultValue: string },
  allowPrivateHosts: boolean,
): Promise<void> {
  const value = m.defaultValue.trim();
  if (!value) return;
  if (slot.kind === 'media' && !isMediaId(value)) {
    await checkMediaLink(value, slot.format as MediaHeaderFormat, slot.key, allowPrivateHosts);
  }
  if (slot.kind === 'location' && !parseLocation(value)) {
    throw badRequest(`${slot.key}: escribe la ubicación como latitud,longitud;nombre;dirección (por ejemplo -34.6037,-58.3816;Tienda;Av. Corrientes 1234)`);
  }
  if (slot.kind === 'coupon_code' && value.length > MAX_COUPON) {
    throw badRequest(`${slot.key}: el código de cupón admite hasta ${MAX_COUPON} caracteres`);
  }
  if (slot.kind === 'url_suffix' && /\s/.test(value)) throw badRequest(`${slot.key}: el final de la URL no puede tener espacios`);
}
