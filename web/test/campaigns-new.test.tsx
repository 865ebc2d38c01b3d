import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { NewCampaignPage } from '../src/features/campaigns/components/new-campaign-page';
import { renderAt, stubApi, type ApiStub, type Routes } from './utils';

const template = (id: number, name: string, status: string, body: string) => ({
  id,
  whatsapp_account_id: 1,
  kommo_account_id: null,
  meta_id: null,
  name,
  language: 'es',
  category: 'marketing',
  status,
  components: [{ type: 'BODY', text: body }],
  rejection_reason: null,
  submission_error: null,
  has_variables: true,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
});

let routes: Routes;
let api: ApiStub;
const posted = () => api.bodies('POST /api/campaigns');

beforeEach(() => {
  routes = {
    'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'miempresa', sync_total_contacts: 10 }] }),
    'GET /api/whatsapp-accounts': () => ({
      body: [
        { id: 1, name: 'Ventas', phone_number: '+5491100000001', display_phone_number: null, is_active: true },
        { id: 2, name: 'Soporte', phone_number: '+5491100000002', display_phone_number: null, is_active: true },
      ],
    }),
    'GET /api/templates/account/1': () => ({ body: [template(1, 'promo', 'approved', 'Hola {{1}}, oferta'), template(2, 'borrador', 'pending', 'x')] }),
    'GET /api/templates/account/2': () => ({ body: [] }),
    'GET /api/contacts/1/tags': () => ({ body: ['vip', 'lima'] }),
    'POST /api/contacts/custom-fields': () => ({ body: [] }),
    'GET /api/contacts/recipient-count': (url) => ({ body: { count: url.searchParams.get('tags') ? 3 : 7 } }),
  };
  api = stubApi(routes);
});

const renderPage = () => renderAt('/campaigns/new', <NewCampaignPage />);

const createButton = () => screen.getByRole('button', { name: /Crear Campaña|Creando\.\.\./ }) as HTMLButtonElement;

describe('NewCampaignPage', () => {
  it('needs a template, clears it when the WhatsApp account changes, and warns when there are none', async () => {
    const user = userEvent.setup();
    renderPage();
    await screen.findByRole('option', { name: 'miempresa' });
    expect(createButton().disabled).toBe(true);
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    const select = (await screen.findByLabelText('Template *')) as HTMLSelectElement;
    // name, language and category; a template Meta has not approved cannot be chosen.
    expect(screen.getByRole('option', { name: 'promo (es) - marketing' })).toBeTruthy();
    expect((screen.getByRole('option', { name: /borrador/ }) as HTMLOptionElement).disabled).toBe(true);
    await user.selectOptions(select, '1');
    expect(screen.getByTestId('template-preview').textContent).toContain('BODY');
    expect(screen.getByTestId('template-preview').textContent).toContain('Hola {{1}}, oferta');
    expect(createButton().disabled).toBe(false);

    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '2');
    expect(await screen.findByText(/No hay templates disponibles para esta cuenta de WhatsApp/)).toBeTruthy();
    expect(createButton().disabled).toBe(true);
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    expect(((await screen.findByLabelText('Template *')) as HTMLSelectElement).value).toBe('');
    expect(screen.queryByTestId('template-preview')).toBeNull();
    expect(createButton().disabled).toBe(true);
  });

  it('counts recipients for the filters and creates the campaign with the spec payload', async () => {
    const user = userEvent.setup();
    let release!: () => void;
    routes['POST /api/campaigns'] = () => new Promise((resolve) => (release = () => resolve({ status: 201, body: { id: 42 } })));
    renderPage();
    await screen.findByRole('option', { name: 'miempresa' });
    await user.type(screen.getByLabelText('Nombre de la Campaña *'), 'Promo VIP');
    await user.selectOptions(screen.getByLabelText('Cuenta Kommo *'), '1');
    await waitFor(() => expect(screen.getByTestId('recipient-count').textContent).toBe('7'));
    await user.click(await screen.findByRole('button', { name: 'vip' }));
    await waitFor(() => expect(screen.getByTestId('recipient-count').textContent).toBe('3'));
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    await user.selectOptions(await screen.findByLabelText('Template *'), '1');

    await user.click(createButton());
    await waitFor(() => expect(createButton().textContent).toBe('Creando...'));
    expect(createButton().disabled).toBe(true);
    release();
    expect(await screen.findByText('pantalla de detalle')).toBeTruthy();
    expect(await screen.findByText('Campaña creada exitosamente')).toBeTruthy();
    expect(posted()).toEqual([
      {
        name: 'Promo VIP',
        description: '',
        kommo_account_id: 1,
        whatsapp_account_id: 1,
        template_id: 1,
        deferred_max_attempts: 2,
        deferred_window_hours: 72,
        message_type: 'template',
        filters: { searchQuery: '', tags: ['vip'], tagOperator: 'OR', customFieldFilters: {} },
      },
    ]);
  });

  it("shows the server's error, or the spec default, when creation fails", async () => {
    const user = userEvent.setup();
    routes['POST /api/campaigns'] = () => ({ status: 400, body: { error: 'La plantilla tiene variables sin configurar: {{1}}' } });
    renderPage();
    await screen.findByRole('option', { name: 'miempresa' });
    await user.type(screen.getByLabelText('Nombre de la Campaña *'), 'X');
    await user.selectOptions(screen.getByLabelText('Cuenta Kommo *'), '1');
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    await user.selectOptions(await screen.findByLabelText('Template *'), '1');
    await user.click(createButton());
    expect(await screen.findByText('La plantilla tiene variables sin configurar: {{1}}')).toBeTruthy();

    routes['POST /api/campaigns'] = () => ({ status: 500, body: {} });
    await user.click(createButton());
    expect(await screen.findByText('Error al crear la campaña')).toBeTruthy();
  });

  it('requires a name and goes back with Cancelar', async () => {
    const user = userEvent.setup();
    renderPage();
    await screen.findByRole('option', { name: 'miempresa' });
    await user.selectOptions(screen.getByLabelText('Cuenta Kommo *'), '1');
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    await user.selectOptions(await screen.findByLabelText('Template *'), '1');
    await user.click(createButton());
    expect(await screen.findByText('El nombre es requerido')).toBeTruthy();
    expect(posted()).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Cancelar' }));
    expect(await screen.findByText('lista de campañas')).toBeTruthy();
  });
});

describe('NewCampaignPage: the template select says why a template cannot be chosen', () => {
  it('before submitting: not approved, or variables without a mapping', async () => {
    const user = userEvent.setup();
    routes['GET /api/templates/account/1'] = () => ({
      body: [template(1, 'promo', 'approved', 'Hola {{1}}, oferta'), template(2, 'borrador', 'pending', 'x'), template(3, 'lista', 'approved', 'Hola {{1}}')],
    });
    const variables = (mapped: boolean) => ({
      body: {
        variables: [{ key: 'variable_1', component: 'body', placeholder: 1, label: '{{1}}' }],
        availableVariables: [],
        mappings: mapped ? [{ templateVariable: 'variable_1', sourceField: 'name', defaultValue: '' }] : [],
      },
    });
    routes['GET /api/variables/template/1'] = () => variables(false);
    routes['GET /api/variables/template/3'] = () => variables(true);
    renderPage();
    await screen.findByRole('option', { name: 'miempresa' });
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    const unmapped = (await screen.findByRole('option', { name: 'promo (es) - marketing · variables sin configurar: {{1}}' })) as HTMLOptionElement;
    expect(unmapped.disabled).toBe(true);
    expect((screen.getByRole('option', { name: 'borrador (es) - marketing · no aprobada (pendiente)' }) as HTMLOptionElement).disabled).toBe(true);
    expect((screen.getByRole('option', { name: 'lista (es) - marketing' }) as HTMLOptionElement).disabled).toBe(false);
  });
});
