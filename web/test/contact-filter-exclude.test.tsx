import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { ContactsPage } from '../src/features/contacts/components/contacts-page';
import { renderAt, stubApi, type ApiStub } from './utils';

let api: ApiStub;
beforeEach(() => {
  api = stubApi();
  api.routes = {
    'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'uno', sync_total_contacts: 5 }] }),
    'GET /api/contacts/1/tags': () => ({ body: ['vip', 'no_contactar'] }),
    'POST /api/contacts/custom-fields': () => ({ body: [] }),
    'GET /api/contacts/1/filtered': (url) => ({
      body: { contacts: [], total: 0, limit: Number(url.searchParams.get('limit')), offset: Number(url.searchParams.get('offset')) },
    }),
  };
});
const lastList = () => api.requests.map((r) => r.url).filter((u) => u.pathname === '/api/contacts/1/filtered').at(-1)!;
const excludeGroup = async () => within(await screen.findByRole('group', { name: 'Sin las etiquetas' }));
const includeGroup = async () => within(await screen.findByRole('group', { name: 'Etiquetas' }));

describe('filter panel: "Sin las etiquetas"', () => {
  it('sends the chosen tags as excludedTags, and a tag is never both included and excluded', async () => {
    renderAt('/contacts?account=1', <ContactsPage />);
    const chip = (await excludeGroup()).getByRole('button', { name: 'Excluir no_contactar' });
    expect(chip.getAttribute('aria-pressed')).toBe('false');

    await userEvent.click(chip);
    expect(chip.getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByText('Activos')).toBeTruthy();
    await waitFor(() => expect(lastList().searchParams.get('excludedTags')).toBe('["no_contactar"]'));
    expect(lastList().searchParams.has('tags')).toBe(false);

    // Including the excluded tag takes it off the exclusion.
    await userEvent.click((await includeGroup()).getByRole('button', { name: 'no_contactar' }));
    await waitFor(() => expect(lastList().searchParams.get('tags')).toBe('["no_contactar"]'));
    expect(lastList().searchParams.has('excludedTags')).toBe(false);
    expect((await excludeGroup()).getByRole('button', { name: 'Excluir no_contactar' }).getAttribute('aria-pressed')).toBe('false');

    // And excluding it again takes it off the included tags.
    await userEvent.click((await excludeGroup()).getByRole('button', { name: 'Excluir no_contactar' }));
    await userEvent.click((await excludeGroup()).getByRole('button', { name: 'Excluir vip' }));
    await waitFor(() => expect(lastList().searchParams.get('excludedTags')).toBe('["no_contactar","vip"]'));
    expect(lastList().searchParams.has('tags')).toBe(false);
    expect((await includeGroup()).getByRole('button', { name: 'vip' }).getAttribute('aria-pressed')).toBe('false');

    // Cleared, the filter is the empty one again (its first page is already cached: no new request).
    await userEvent.click(screen.getByRole('button', { name: 'Limpiar exclusiones (2)' }));
    const pressed = (await excludeGroup()).getAllByRole('button').filter((b) => b.getAttribute('aria-pressed') === 'true');
    expect(pressed).toEqual([]);
    expect(screen.queryByText('Activos')).toBeNull();
  }, 20_000);
});
