import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import toast, { Toaster } from 'react-hot-toast';
import { MemoryRouter, Route, Routes } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NewCampaignPage } from '../src/features/campaigns/components/new-campaign-page';

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

type Reply = { status?: number; body: unknown };
let routes: Record<string, (url: URL, init?: RequestInit) => Reply | Promise<Reply>>;
const posted: unknown[] = [];

beforeEach(() => {
  posted.length = 0;
  localStorage.setItem('token', 't');
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: false, media: query, addEventListener() {}, removeEventListener() {} }));
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
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init?: RequestInit) => {
      const url = new URL(String(input), 'http://localhost');
      const key = `${init?.method ?? 'GET'} ${url.pathname}`;
      if (init?.method === 'POST' && url.pathname === '/api/campaigns') posted.push(JSON.parse(String(init.body)));
      const handler = routes[key];
      const { status = 200, body } = handler ? await handler(url, init) : { status: 500, body: { error: `sin ruta ${key}` } };
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  toast.remove();
});

function renderPage() {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={['/campaigns/new']}>
        <Routes>
          <Route path="/campaigns/new" element={<NewCampaignPage />} />
          <Route path="/campaigns/:id" element={<p>pantalla de detalle</p>} />
          <Route path="/campaigns" element={<p>lista de campañas</p>} />
        </Routes>
        <Toaster />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

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
    expect(posted).toEqual([
      {
        name: 'Promo VIP',
        description: '',
        kommo_account_id: 1,
        whatsapp_account_id: 1,
        template_id: 1,
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
    expect(posted).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Cancelar' }));
    expect(await screen.findByText('lista de campañas')).toBeTruthy();
  });
});
