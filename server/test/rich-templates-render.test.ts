import { describe, expect, it } from 'vitest';
import { templateVariableSlots } from '@masivo/contract/variables';
import type { TemplateComponent } from '../src/db/schema/whatsapp';
import { buildSendComponents, type ContactLike } from '../src/services/variables/render';
import { COUPON_SEND_COMPONENTS, COUPON_TEMPLATE, DOCUMENT_TEMPLATE, IMAGE_URL_SEND_COMPONENTS, IMAGE_URL_TEMPLATE, NAMED_SEND_COMPONENTS, NAMED_TEMPLATE } from './fixtures/meta-templates';

const contact: ContactLike = {
  name: 'Jessica Laverdetman', first_name: 'Jessica', last_name: 'Laverdetman', phone: '+5491100000001', email: null,
  custom_fields: { Factura: 'https://files.example.com/facturas/factura-123.pdf', Pedido: '860198-230332', Promo: 'summer2023' },
};
const tpl = (t: { components: unknown[]; parameter_format?: string }) => ({ components: t.components as TemplateComponent[], parameterFormat: t.parameter_format });
const fromContact = (templateVariable: string, sourceField: string) => ({ templateVariable, sourceType: 'contact', sourceField, defaultValue: '' });
const fixed = (templateVariable: string, defaultValue: string) => ({ templateVariable, sourceType: 'static', sourceField: '', defaultValue });

describe('components built from Meta\'s documented templates', () => {
  it('named parameters: parameter_name on every text parameter, values from contact fields', () => {
    const out = buildSendComponents(tpl(NAMED_TEMPLATE), [
      fromContact('header_variable_order_number', 'custom_fields.Pedido'), fromContact('variable_first_name', 'first_name'), fromContact('variable_order_number', 'custom_fields.Pedido'),
    ], contact);
    expect(out).toEqual(NAMED_SEND_COMPONENTS);
  });

  it('image header by link from a contact field when nothing was uploaded, url suffix from a contact field', () => {
    const out = buildSendComponents(tpl(IMAGE_URL_TEMPLATE), [
      fixed('header_media', 'https://cdn.example.com/p.jpg'), fixed('variable_1', 'the end of August'), fixed('variable_2', '25OFF'), fixed('variable_3', '25%'), fromContact('button_0', 'custom_fields.Promo'),
    ], contact);
    const [, ...rest] = IMAGE_URL_SEND_COMPONENTS('x');
    expect(out).toEqual([{ type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/p.jpg' } }] }, ...rest]);
  });

  it('document header by link carries the filename of the link', () => {
    const out = buildSendComponents(tpl(DOCUMENT_TEMPLATE), [fromContact('header_media', 'custom_fields.Factura'), fromContact('variable_1', 'first_name')], contact);
    expect(out[0]).toEqual({ type: 'header', parameters: [{ type: 'document', document: { link: 'https://files.example.com/facturas/factura-123.pdf', filename: 'factura-123.pdf' } }] });
  });

  it('buttons are ordered by index with index as a string; quick replies only with a payload', () => {
    const mappings = [fixed('variable_1', '25OFF'), fixed('variable_2', '25%'), fixed('button_1', '25OFF')];
    expect(buildSendComponents(tpl(COUPON_TEMPLATE), mappings, contact, { quickReplyPayload: () => 'P' })).toEqual(COUPON_SEND_COMPONENTS('P'));
    expect(buildSendComponents(tpl(COUPON_TEMPLATE), mappings, contact).map((c) => c.type)).toEqual(['body', 'button']);
  });

  it('refuses to build a message while a slot has no value, naming the slot', () => {
    expect(() => buildSendComponents(tpl(IMAGE_URL_TEMPLATE), [fixed('variable_1', 'a'), fixed('variable_2', 'b'), fixed('variable_3', 'c')], contact))
      .toThrow('La plantilla tiene variables sin configurar: Imagen del encabezado, Botón 1 (final de la URL)');
  });

  it('infers NAMED from the placeholders when Meta did not say', () => {
    expect(templateVariableSlots(NAMED_TEMPLATE.components).map((s) => s.key)).toEqual(['header_variable_order_number', 'variable_first_name', 'variable_order_number']);
  });
});
