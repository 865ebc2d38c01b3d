import type { ApiKey } from '@masivo/contract/api-keys';
import { ROLE_PERMISSIONS } from '@masivo/contract/organizations';
import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { SidebarContent } from '../src/app/layout/sidebar';
import { ApiKeysPage } from '../src/features/api-keys/components/api-keys-page';
import { AuthProvider } from '../src/features/auth/auth-context';
import { queryClient } from '../src/lib/query-client';
import { OWNER_ME, renderAt, stubApi } from './utils';

const KEY = 'msv_live_' + 'x'.repeat(40);

const apiKey = (over: Partial<ApiKey> = {}): ApiKey => ({
  id: 1,
  name: 'Tienda online',
  start: 'msv_live_ab12',
  scopes: ['campaigns:read', 'contacts:read'],
  whatsapp_account_ids: [],
  rate_limit_per_minute: 120,
  created_by: { id: 1, name: 'Ana Pérez' },
  created_at: '2026-03-01T10:00:00.000Z',
  expires_at: null,
  last_used_at: '2026-03-02T11:30:00.000Z',
  last_used_ip: '203.0.113.9',
  revoked_at: null,
  status: 'active',
  ...over,
});

const numbers = [
  { id: 4, name: 'Ventas', phone_number: '+5491100000004' },
  { id: 5, name: 'Soporte', phone_number: '+5491100000005' },
];

describe('«Claves de API»', () => {
  it('lists the keys with their scopes, numbers, last use and status in words', async () => {
    stubApi({
      'GET /api/api-keys': () => ({
        body: [
          apiKey(),
          apiKey({ id: 2, name: 'BI', scopes: ['campaigns:read'], whatsapp_account_ids: [5], last_used_at: null, last_used_ip: null, status: 'revoked', revoked_at: '2026-03-03T00:00:00.000Z' }),
        ],
      }),
      'GET /api/whatsapp-accounts': () => ({ body: numbers }),
    });
    renderAt('/api-keys', <ApiKeysPage />);
    const rows = await screen.findAllByTestId('api-key-row');
    expect(rows).toHaveLength(2);
    const [shop, bi] = rows;
    expect(within(shop).getByText('Leer campañas y resultados')).toBeTruthy();
    expect(within(shop).getByText('Leer contactos')).toBeTruthy();
    expect(within(shop).getByText('Todos')).toBeTruthy();
    expect(within(shop).getByText('IP 203.0.113.9')).toBeTruthy();
    expect(within(shop).getByText('Activa')).toBeTruthy();
    expect(within(shop).getByRole('button', { name: 'Revocar la clave Tienda online' })).toBeTruthy();
    expect(await within(bi).findByText('Soporte')).toBeTruthy();
    expect(within(bi).getByText('Nunca')).toBeTruthy();
    expect(within(bi).getByText('Revocada')).toBeTruthy();
    // A revoked key has nothing left to revoke.
    expect(within(bi).queryByRole('button', { name: /Revocar/ })).toBeNull();
    expect(screen.getByRole('link', { name: /Documentación de la API/ }).getAttribute('href')).toBe('/api/v1/docs');
  });

  it('says so when there is no key yet', async () => {
    stubApi({ 'GET /api/api-keys': () => ({ body: [] }), 'GET /api/whatsapp-accounts': () => ({ body: [] }) });
    renderAt('/api-keys', <ApiKeysPage />);
    expect(await screen.findByText('Todavía no hay claves de API')).toBeTruthy();
  });

  it('validates, creates a key, shows it once with «Copiar» and a curl line, and forgets it on closing', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    let listed: ApiKey[] = [];
    const api = stubApi({
      'GET /api/api-keys': () => ({ body: listed }),
      'GET /api/whatsapp-accounts': () => ({ body: numbers }),
      'POST /api/api-keys': () => {
        listed = [apiKey({ id: 9, name: 'Zapier', scopes: ['campaigns:read'], whatsapp_account_ids: [4], last_used_at: null, last_used_ip: null })];
        return { status: 201, body: { ...listed[0], key: KEY } };
      },
    });
    renderAt('/api-keys', <ApiKeysPage />);
    const opener = await screen.findByRole('button', { name: 'Nueva clave' });
    opener.focus();
    fireEvent.click(opener);
    const dialog = await screen.findByRole('dialog', { name: 'Nueva clave' });

    // Nothing filled: the contract's messages, and nothing sent.
    fireEvent.click(within(dialog).getByRole('button', { name: 'Crear clave' }));
    expect(await within(dialog).findByText('El nombre es requerido')).toBeTruthy();
    expect(within(dialog).getByText('Elige al menos un permiso')).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog).getByLabelText(/Nombre/));
    expect(api.calls()).not.toContain('POST /api/api-keys');

    fireEvent.change(within(dialog).getByLabelText(/Nombre/), { target: { value: 'Zapier' } });
    fireEvent.click(within(dialog).getByLabelText('Leer campañas y resultados'));
    fireEvent.click(await within(dialog).findByLabelText(/Ventas/));
    expect((within(dialog).getByLabelText(/Peticiones por minuto/) as HTMLInputElement).value).toBe('120');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Crear clave' }));
    await waitFor(() => expect(api.bodies('POST /api/api-keys')).toHaveLength(1));
    expect(api.bodies('POST /api/api-keys')[0]).toEqual({
      name: 'Zapier',
      scopes: ['campaigns:read'],
      whatsapp_account_ids: [4],
      expires_at: null,
      rate_limit_per_minute: 120,
    });

    const shown = await screen.findByRole('dialog', { name: 'Clave creada' });
    expect(within(shown).getByText('Guárdala ahora: no se volverá a mostrar.')).toBeTruthy();
    expect(within(shown).getByText(KEY)).toBeTruthy();
    expect(within(shown).getByText(`curl -H "Authorization: Bearer ${KEY}" ${window.location.origin}/api/v1/campaigns`)).toBeTruthy();
    const copy = within(shown).getByRole('button', { name: 'Copiar' });
    expect(document.activeElement).toBe(copy);
    fireEvent.click(copy);
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(KEY));
    expect(await within(shown).findByText('Copiado al portapapeles')).toBeTruthy();

    fireEvent.click(within(shown).getByRole('button', { name: 'Listo, la guardé' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.queryByText(KEY, { exact: false })).toBeNull();
    await waitFor(() => expect(document.activeElement).toBe(opener));
    // The list has the new key, by its start only.
    expect(await screen.findByText('Zapier')).toBeTruthy();
    expect(screen.queryByText(KEY, { exact: false })).toBeNull();

    // Opening again starts from an empty form, not from the key.
    fireEvent.click(opener);
    const again = await screen.findByRole('dialog', { name: 'Nueva clave' });
    expect((within(again).getByLabelText(/Nombre/) as HTMLInputElement).value).toBe('');
  });

  it("shows the server's refusal inside the dialog", async () => {
    stubApi({
      'GET /api/api-keys': () => ({ body: [] }),
      'GET /api/whatsapp-accounts': () => ({ body: [] }),
      'POST /api/api-keys': () => ({ status: 409, body: { error: 'La organización ya tiene 20 claves activas' } }),
    });
    renderAt('/api-keys', <ApiKeysPage />);
    fireEvent.click(await screen.findByRole('button', { name: 'Nueva clave' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nueva clave' });
    fireEvent.change(within(dialog).getByLabelText(/Nombre/), { target: { value: 'Otra' } });
    fireEvent.click(within(dialog).getByLabelText('Leer plantillas'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Crear clave' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('La organización ya tiene 20 claves activas');
  });

  it('revokes after a confirmation that says it takes effect on the next request', async () => {
    let listed = [apiKey()];
    const api = stubApi({
      'GET /api/api-keys': () => ({ body: listed }),
      'GET /api/whatsapp-accounts': () => ({ body: [] }),
      'DELETE /api/api-keys/1': () => {
        listed = [apiKey({ status: 'revoked', revoked_at: '2026-03-04T00:00:00.000Z' })];
        return { body: listed[0] };
      },
    });
    renderAt('/api-keys', <ApiKeysPage />);
    fireEvent.click(await screen.findByRole('button', { name: 'Revocar la clave Tienda online' }));
    const dialog = await screen.findByRole('dialog', { name: '¿Revocar la clave «Tienda online»?' });
    expect(within(dialog).getByText(/desde la próxima petición/)).toBeTruthy();
    // Cancelling does nothing.
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls()).not.toContain('DELETE /api/api-keys/1');

    fireEvent.click(screen.getByRole('button', { name: 'Revocar la clave Tienda online' }));
    const again = await screen.findByRole('dialog');
    fireEvent.click(within(again).getByRole('button', { name: 'Revocar' }));
    await waitFor(() => expect(api.calls()).toContain('DELETE /api/api-keys/1'));
    expect(await screen.findByText('Revocada')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Revocar la clave Tienda online' })).toBeNull();
  });

  it('a role without the permission sees neither the sidebar entry nor the page', async () => {
    const editor = { ...OWNER_ME, role: 'editor' as const, permissions: [...ROLE_PERMISSIONS.editor], organizations: [{ id: 1, name: 'Ana Pérez', role: 'editor' as const }] };
    const api = stubApi({ 'GET /api/me': () => ({ body: editor }), 'GET /api/auth/me': () => ({ body: editor.user }) });
    localStorage.setItem('user', JSON.stringify(editor.user));
    queryClient.clear();
    render(
      <QueryClientProvider client={queryClient}>
        <MemoryRouter initialEntries={['/dashboard']}>
          <AuthProvider>
            <SidebarContent />
          </AuthProvider>
        </MemoryRouter>
      </QueryClientProvider>,
    );
    await waitFor(() => expect(api.requests.some((r) => r.key === 'GET /api/me')).toBe(true));
    expect(await screen.findByRole('link', { name: 'Campañas' })).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole('link', { name: 'Claves de API' })).toBeNull());
    queryClient.clear();
  });

  it('the owner sees the sidebar entry after «Registro de actividad»', async () => {
    stubApi({ 'GET /api/auth/me': () => ({ body: OWNER_ME.user }) });
    localStorage.setItem('user', JSON.stringify(OWNER_ME.user));
    queryClient.clear();
    render(
      <QueryClientProvider client={queryClient}>
        <MemoryRouter initialEntries={['/dashboard']}>
          <AuthProvider>
            <SidebarContent />
          </AuthProvider>
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const nav = await screen.findByRole('navigation', { name: 'Navegación principal' });
    await waitFor(() => {
      const labels = within(nav).getAllByRole('link').map((l) => l.textContent);
      const at = labels.indexOf('Registro de actividad');
      expect(labels.slice(at, at + 2)).toEqual(['Registro de actividad', 'Claves de API']);
    });
    queryClient.clear();
  });

  it('the page tells a role without the permission, instead of failing', async () => {
    const viewer = { ...OWNER_ME, role: 'viewer' as const, permissions: [...ROLE_PERMISSIONS.viewer] };
    const api = stubApi({ 'GET /api/me': () => ({ body: viewer }) });
    renderAt('/api-keys', <ApiKeysPage />);
    expect(await screen.findByText(/no permite administrar las claves de API/)).toBeTruthy();
    expect(api.calls()).not.toContain('GET /api/api-keys');
  });
});
