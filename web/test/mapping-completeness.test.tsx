import { isMapped, templateVariableSlots, unmappedSlots } from '@masivo/contract/variables';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { NewCampaignPage } from '../src/features/campaigns/components/new-campaign-page';
import { renderAt, stubApi } from './utils';

/** The demo's coupon template: a body placeholder, a quick reply and a copy-code button. */
const COUPON = [
  { type: 'BODY', text: 'Hola {{1}}, usa tu cupón para obtener 15% de descuento.' },
  { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'No me interesa' }, { type: 'COPY_CODE', example: 'MASIVO15' }] },
];
/** An image header and a copy-code button: both filled with fixed values. */
const IMAGE_COUPON = [
  { type: 'HEADER', format: 'IMAGE' },
  { type: 'BODY', text: 'Tu regalo te espera.' },
  { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', example: 'REGALO' }] },
];

/** What the dialog saves for «Valor fijo»: no field, the value in defaultValue. */
const fixed = (templateVariable: string, value: string) => ({ templateVariable, sourceType: 'static', sourceField: '', defaultValue: value });
const field = (templateVariable: string, sourceField: string, defaultValue = '') => ({ templateVariable, sourceType: 'contact', sourceField, defaultValue });

describe('mapping completeness (the rule the server and the template select share)', () => {
  it('counts a fixed value as mapped by its text, not by its empty field', () => {
    expect(isMapped(fixed('button_1', 'MASIVO15'))).toBe(true);
    expect(isMapped(fixed('button_1', '   '))).toBe(false);
    expect(isMapped(field('variable_1', 'first_name'))).toBe(true);
    // A default alone does not map a contact slot: the field is what names the source.
    expect(isMapped(field('variable_1', '', 'cliente'))).toBe(false);
    // Mappings saved before sourceType existed are contact mappings.
    expect(isMapped({ templateVariable: 'variable_1', sourceField: 'name', defaultValue: '' })).toBe(true);
    expect(isMapped(undefined)).toBe(false);
  });

  it('lists only the slots nothing fills, in sending order, with their labels', () => {
    const slots = templateVariableSlots(COUPON);
    expect(slots.map((s) => s.label)).toEqual(['{{1}}', 'Botón 2 (código de cupón)']);
    expect(unmappedSlots(slots, [field('variable_1', 'first_name'), fixed('button_1', 'MASIVO15')])).toEqual([]);
    expect(unmappedSlots(slots, [field('variable_1', 'first_name')]).map((s) => s.label)).toEqual(['Botón 2 (código de cupón)']);
    expect(unmappedSlots(slots, [fixed('button_1', '')]).map((s) => s.label)).toEqual(['{{1}}', 'Botón 2 (código de cupón)']);
    // A mapping of a key the template does not have fills nothing.
    expect(unmappedSlots(slots, [fixed('button_0', 'X'), field('variable_2', 'name')]).map((s) => s.key)).toEqual(['variable_1', 'button_1']);

    const image = templateVariableSlots(IMAGE_COUPON);
    expect(image.map((s) => s.key)).toEqual(['header_media', 'button_0']);
    expect(unmappedSlots(image, [fixed('header_media', '1234567890'), fixed('button_0', 'REGALO')])).toEqual([]);
  });
});

describe('Nueva Campaña: templates mapped to fixed values can be chosen', { timeout: 45_000 }, () => {
  const template = (id: number, name: string, components: unknown[]) => ({
    id,
    whatsapp_account_id: 1,
    kommo_account_id: null,
    meta_id: null,
    name,
    language: 'es',
    category: 'marketing',
    status: 'approved',
    components,
    rejection_reason: null,
    submission_error: null,
    has_variables: true,
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:00Z',
  });
  const variables = (components: unknown[], mappings: unknown[]) => ({
    body: { variables: templateVariableSlots(components as never), incompatibleReason: null, availableVariables: [], mappings, optOutButtons: [] },
  });

  it('enables a template whose button and media header have fixed values, and names what is still missing elsewhere', async () => {
    const user = userEvent.setup();
    stubApi({
      'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'miempresa', sync_total_contacts: 10 }] }),
      'GET /api/whatsapp-accounts': () => ({ body: [{ id: 1, name: 'Ventas', phone_number: '+5491100000001', display_phone_number: null, is_active: true }] }),
      'GET /api/templates/account/1': () => ({
        body: [template(1, 'cupon_descuento', COUPON), template(2, 'regalo_imagen', IMAGE_COUPON), template(3, 'cupon_vacio', COUPON)],
      }),
      'GET /api/variables/template/1': () => variables(COUPON, [field('variable_1', 'first_name', 'cliente'), fixed('button_1', 'MASIVO15')]),
      'GET /api/variables/template/2': () => variables(IMAGE_COUPON, [fixed('header_media', '1234567890'), fixed('button_0', 'REGALO')]),
      // A fixed value left blank (saved by an older console) is still missing.
      'GET /api/variables/template/3': () => variables(COUPON, [field('variable_1', 'first_name'), fixed('button_1', '')]),
    });
    renderAt('/campaigns/new', <NewCampaignPage />);
    await screen.findByRole('option', { name: 'miempresa' });
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');

    const blank = (await screen.findByRole('option', { name: 'cupon_vacio (es) - marketing · variables sin configurar: Botón 2 (código de cupón)' })) as HTMLOptionElement;
    expect(blank.disabled).toBe(true);
    const coupon = screen.getByRole('option', { name: 'cupon_descuento (es) - marketing' }) as HTMLOptionElement;
    const image = screen.getByRole('option', { name: 'regalo_imagen (es) - marketing' }) as HTMLOptionElement;
    expect(coupon.disabled).toBe(false);
    expect(image.disabled).toBe(false);

    await user.selectOptions(screen.getByLabelText('Template *'), '1');
    expect((screen.getByLabelText('Template *') as HTMLSelectElement).value).toBe('1');
    expect((screen.getByRole('button', { name: 'Crear Campaña' }) as HTMLButtonElement).disabled).toBe(false);
  });
});
