import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { templateOptionLabel } from '../src/features/campaigns/components/template-section';
import { TemplatesPage } from '../src/features/templates/components/templates-page';
import { renderAt, stubApi, type ApiStub } from './utils';

/** Rich templates on the templates screen: media headers, buttons, named placeholders, «No compatible». */
let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});

const waAccount = { id: 7, name: 'Ventas', phone_number: '+5491100000000', display_phone_number: null, kommo_account_id: null };
const base = {
  whatsapp_account_id: 7, kommo_account_id: null, meta_id: '1', language: 'es', category: 'marketing', status: 'approved',
  rejection_reason: null, submission_error: null, has_variables: false, parameter_format: 'POSITIONAL', quality_score: null,
  campaign_compatible: true, incompatible_reason: null, created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z',
};
const REASON = 'No compatible con campañas: las plantillas de carrusel todavía no se pueden enviar';
const TEMPLATES = [
  {
    ...base, id: 1, name: 'promo_imagen',
    components: [
      { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::x'] } },
      { type: 'BODY', text: 'Mira la colección.' },
      { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Ver catálogo', url: 'https://t.example/{{1}}' }, { type: 'QUICK_REPLY', text: 'No me interesa' }] },
    ],
  },
  { ...base, id: 2, name: 'pedido', parameter_format: 'NAMED', has_variables: true, components: [{ type: 'BODY', text: 'Hola {{first_name}}, pedido {{order_number}}.' }] },
  { ...base, id: 3, name: 'carrusel', campaign_compatible: false, incompatible_reason: REASON, components: [{ type: 'BODY', text: 'Mira' }, { type: 'CAROUSEL', cards: [{}, {}] }] },
];

describe('template cards', () => {
  it('show the header kind, the buttons as chips, named placeholders and why a template cannot be sent', async () => {
    api.routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({ body: TEMPLATES }),
    };
    renderAt('/templates', <TemplatesPage />);
    const [image, named, carousel] = await screen.findAllByTestId('template-item');
    expect(within(image!).getByTestId('header-format').textContent).toBe('Imagen');
    expect(within(image!).getAllByTestId('template-button-chip').map((c) => c.textContent)).toEqual(['Ver catálogo (Enlace)', 'No me interesa (Respuesta rápida)']);
    // A media header or a button suffix needs a mapping even without body placeholders.
    expect(within(image!).getByRole('button', { name: /Configurar Variables/ })).toBeTruthy();
    expect(within(named!).getByTestId('named-placeholders').textContent).toContain('{{first_name}}');
    expect(within(carousel!).getByTestId('template-incompatible').textContent).toBe(REASON);
    expect(within(carousel!).getByText('Carrusel de 2 tarjetas')).toBeTruthy();
  });
});

describe('mapping dialog', () => {
  it('offers the media and button slots, a fixed value, the «Baja» mark, and shows the server’s Spanish refusal', async () => {
    const user = userEvent.setup();
    api.routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({ body: [TEMPLATES[0]] }),
      'GET /api/variables/template/1': () => ({
        body: {
          templateId: 1,
          variables: [
            { key: 'header_media', component: 'header', placeholder: 1, kind: 'media', format: 'IMAGE', label: 'Imagen del encabezado' },
            { key: 'button_0', component: 'button', placeholder: 1, kind: 'url_suffix', index: 0, label: 'Botón 1 (final de la URL)' },
          ],
          incompatibleReason: null,
          availableVariables: [{ key: 'first_name', displayName: 'Nombre', category: 'contact', description: '' }],
          mappings: [],
          optOutButtons: [],
        },
      }),
      'POST /api/variables/template/1/mappings': () => ({ status: 400, body: { error: 'header_media: el enlace debe empezar con https://' } }),
    };
    renderAt('/templates', <TemplatesPage />);
    await user.click(await screen.findByRole('button', { name: /Configurar Variables/ }));
    const dialog = await screen.findByRole('dialog');
    await user.selectOptions(await within(dialog).findByLabelText('Campo para Imagen del encabezado'), '__static__');
    await user.type(within(dialog).getByLabelText('Valor fijo para Imagen del encabezado'), 'http://x.example/a.png');
    await user.selectOptions(within(dialog).getByLabelText('Campo para Botón 1 (final de la URL)'), 'first_name');
    await user.click(within(dialog).getByLabelText('Marcar «No me interesa» como Baja'));
    expect(within(dialog).getByTestId('preview-media').textContent).toContain('http://x.example/a.png');
    expect(within(dialog).getByText('https://t.example/Juan')).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Guardar Configuración' }));
    expect((await within(dialog).findByTestId('mapping-errors')).textContent).toContain('el enlace debe empezar con https://');
    expect(api.bodies('POST /api/variables/template/1/mappings')).toEqual([
      {
        mappings: [
          { templateVariable: 'header_media', sourceType: 'static', sourceField: '', defaultValue: 'http://x.example/a.png' },
          { templateVariable: 'button_0', sourceType: 'contact', sourceField: 'first_name', defaultValue: '' },
        ],
        optOutButtons: [1],
      },
    ]);
  });
});

describe('new-campaign template select', () => {
  it('says why a template is not compatible with campaigns', () => {
    const t = { name: 'carrusel', language: 'es', category: 'marketing', status: 'approved', incompatible_reason: REASON };
    expect(templateOptionLabel(t)).toBe('carrusel (es) - marketing · no compatible con campañas: las plantillas de carrusel todavía no se pueden enviar');
  });
});
