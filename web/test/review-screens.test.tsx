import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactNode } from 'react';
import toast, { Toaster } from 'react-hot-toast';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ContactsPage } from '../src/features/contacts/components/contacts-page';
import { TemplatesPage } from '../src/features/templates/components/templates-page';

type Handler = (url: URL, init: RequestInit | undefined) => { status?: number; body: unknown };
let routes: Record<string, Handler>;
const urls: URL[] = [];

beforeEach(() => {
  urls.length = 0;
  localStorage.setItem('token', 't');
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: false, media: query, addEventListener() {}, removeEventListener() {} }));
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init?: RequestInit) => {
      const url = new URL(String(input), 'http://localhost');
      urls.push(url);
      const handler = routes[`${init?.method ?? 'GET'} ${url.pathname}`];
      const { status = 200, body } = handler ? handler(url, init) : { status: 500, body: { error: `sin ruta ${url.pathname}` } };
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  toast.remove();
});

function renderPage(element: ReactNode, path = '/') {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[path]}>
        {element}
        <Toaster />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const waAccount = { id: 7, name: 'Ventas', phone_number: '+5491100000000', display_phone_number: null, kommo_account_id: null };

describe('TemplatesPage (spec §5 / §8 sync messages)', () => {
  it('asks for an account before syncing when there is none', async () => {
    routes = { 'GET /api/whatsapp-accounts': () => ({ body: [] }) };
    renderPage(<TemplatesPage />);
    expect(await screen.findByText('Templates Disponibles (0)')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Templates/ }));
    expect(await screen.findByText('Selecciona una cuenta primero')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Todas/ }));
    expect(await screen.findByText('No hay cuentas de WhatsApp disponibles')).toBeTruthy();
    expect(urls.some((u) => u.pathname.startsWith('/api/templates/sync'))).toBe(false);
  });

  it("shows each item error as 'Error: {text}' and a failed account as 'Error en cuenta: {text}'", async () => {
    routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({ body: [] }),
      'POST /api/templates/sync': () => ({ body: { success: true, synced: 2, updated: 1, deleted: 0, errors: ['plantilla rara'] } }),
      'POST /api/templates/sync-all': () => ({
        body: {
          success: false,
          results: [{ whatsapp_account_id: 7, account_name: 'Ventas', success: false, synced: 0, updated: 0, deleted: 0, errors: [], error: 'Token vencido' }],
        },
      }),
    };
    renderPage(<TemplatesPage />);
    expect(await screen.findByText('No hay templates')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Templates/ }));
    expect(await screen.findByText('Sincronización exitosa: 2 nuevos, 1 actualizados')).toBeTruthy();
    expect(await screen.findByText('Error: plantilla rara')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Sincronizar Todas/ }));
    expect(await screen.findByText('Sincronización completa exitosa')).toBeTruthy();
    expect(await screen.findByText('Error en cuenta: Token vencido')).toBeTruthy();
  });
});

describe('ContactsPage (spec §2 filters and paging)', () => {
  const page = (url: URL) => ({
    body: { contacts: [], total: 0, limit: Number(url.searchParams.get('limit')), offset: Number(url.searchParams.get('offset')) },
  });
  beforeEach(() => {
    routes = {
      'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'uno', sync_total_contacts: 5 }, { id: 2, subdomain: 'dos', sync_total_contacts: 3 }] }),
      'GET /api/contacts/1/tags': () => ({ body: ['vip'] }),
      'GET /api/contacts/2/tags': () => ({ body: ['otro'] }),
      'POST /api/contacts/custom-fields': () => ({ body: [] }),
      'GET /api/contacts/1/filtered': page,
      'GET /api/contacts/2/filtered': page,
    };
  });

  it("shows 'Activos' with a filter on, and a new account starts with no filters", async () => {
    renderPage(<ContactsPage />, '/contacts?account=1');
    expect(await screen.findByText('No hay contactos disponibles')).toBeTruthy();
    expect(screen.getByRole('option', { name: '20' })).toBeTruthy();
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(expect.arrayContaining(['10', '20', '50', '100']));
    expect(screen.getByTestId('contacts-summary').textContent).toBe('Mostrando 0 al 0 de 0 resultados');

    await userEvent.click(await screen.findByRole('button', { name: 'vip' }));
    expect(screen.getByText('Activos')).toBeTruthy();
    await waitFor(() => expect(urls.some((u) => u.pathname === '/api/contacts/1/filtered' && u.searchParams.get('tags') === '["vip"]')).toBe(true));
    expect(await screen.findByText('No hay contactos que coincidan con los filtros aplicados')).toBeTruthy();

    await userEvent.selectOptions(screen.getByLabelText('Cuenta Kommo'), '2');
    expect(await screen.findByRole('button', { name: 'otro' })).toBeTruthy();
    expect(screen.queryByText('Activos')).toBeNull();
    await waitFor(() => expect(urls.some((u) => u.pathname === '/api/contacts/2/filtered')).toBe(true));
    // Not even a first request for the new account may carry the old account's filters.
    const second = urls.filter((u) => u.pathname === '/api/contacts/2/filtered');
    expect(second.every((u) => !u.searchParams.has('tags') && u.searchParams.get('offset') === '0')).toBe(true);
  });
});
