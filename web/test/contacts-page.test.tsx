import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { ContactsPage } from '../src/features/contacts/components/contacts-page';
import { renderAt, stubApi, type ApiStub } from './utils';

let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});
const urls = () => api.requests.map((r) => r.url);

describe('ContactsPage (spec §2 filters and paging)', () => {
  const page = (url: URL) => ({
    body: { contacts: [], total: 0, limit: Number(url.searchParams.get('limit')), offset: Number(url.searchParams.get('offset')) },
  });
  beforeEach(() => {
    api.routes = {
      'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'uno', sync_total_contacts: 5 }, { id: 2, subdomain: 'dos', sync_total_contacts: 3 }] }),
      'GET /api/contacts/1/tags': () => ({ body: ['vip'] }),
      'GET /api/contacts/2/tags': () => ({ body: ['otro'] }),
      'POST /api/contacts/custom-fields': () => ({ body: [] }),
      'GET /api/contacts/1/filtered': page,
      'GET /api/contacts/2/filtered': page,
    };
  });

  it("shows 'Activos' with a filter on, and a new account starts with no filters", async () => {
    renderAt('/contacts?account=1', <ContactsPage />);
    expect(await screen.findByText('No hay contactos disponibles')).toBeTruthy();
    expect(screen.getByRole('option', { name: '20' })).toBeTruthy();
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(expect.arrayContaining(['10', '20', '50', '100']));
    expect(screen.getByTestId('contacts-summary').textContent).toBe('Mostrando 0 al 0 de 0 resultados');

    await userEvent.click(within(await screen.findByRole('group', { name: 'Etiquetas' })).getByRole('button', { name: 'vip' }));
    expect(screen.getByText('Activos')).toBeTruthy();
    await waitFor(() => expect(urls().some((u) => u.pathname === '/api/contacts/1/filtered' && u.searchParams.get('tags') === '["vip"]')).toBe(true));
    expect(await screen.findByText('No hay contactos que coincidan con los filtros aplicados')).toBeTruthy();

    await userEvent.selectOptions(screen.getByLabelText('Cuenta Kommo'), '2');
    expect(within(await screen.findByRole('group', { name: 'Etiquetas' })).getByRole('button', { name: 'otro' })).toBeTruthy();
    expect(screen.queryByText('Activos')).toBeNull();
    await waitFor(() => expect(urls().some((u) => u.pathname === '/api/contacts/2/filtered')).toBe(true));
    // Not even a first request for the new account may carry the old account's filters.
    const second = urls().filter((u) => u.pathname === '/api/contacts/2/filtered');
    expect(second.every((u) => !u.searchParams.has('tags') && u.searchParams.get('offset') === '0')).toBe(true);
  });
});
