import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Toaster } from 'react-hot-toast';
import { MemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { SidebarContent } from '../src/app/layout/sidebar';
import { AuthProvider, useAuth } from '../src/features/auth/auth-context';
import { queryClient } from '../src/lib/query-client';
import { stubApi, type ApiStub } from './utils';

/** The shell's two ways out: «Cerrar Sesión» (this session) and «Cerrar sesión en todos los dispositivos». */
let api: ApiStub;
const USER = { id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: 'Pérez', created_at: '2025-01-01T00:00:00.000Z' };
beforeEach(() => {
  api = stubApi({
    'GET /api/auth/me': () => ({ body: USER }),
    'POST /api/auth/logout': () => ({ body: { success: true } }),
    'POST /api/auth/logout-all': () => ({ body: { success: true } }),
  });
  localStorage.setItem('user', JSON.stringify(USER));
});

function SignedIn() {
  const { user } = useAuth();
  return <p>{user ? 'con sesión' : 'sin sesión'}</p>;
}

function renderShell() {
  return render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={['/dashboard']}>
        <AuthProvider>
          <SignedIn />
          <SidebarContent />
        </AuthProvider>
        <Toaster />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}
const signOuts = () => api.calls().filter((c) => c.startsWith('POST /api/auth/logout'));

describe('sidebar sign-out actions', () => {
  it('«Cerrar Sesión» signs out this session only, without asking', async () => {
    renderShell();
    expect(await screen.findByText('con sesión')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Cerrar Sesión' }));
    expect(await screen.findByText('sin sesión')).toBeTruthy();
    expect(signOuts()).toEqual(['POST /api/auth/logout']);
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('«Cerrar sesión en todos los dispositivos» asks first; «Cancelar» changes nothing', async () => {
    renderShell();
    await userEvent.click(await screen.findByRole('button', { name: 'Cerrar sesión en todos los dispositivos' }));
    const dialog = await screen.findByRole('dialog', { name: '¿Cerrar sesión en todos los dispositivos?' });
    expect(within(dialog).getByText(/todos los demás dispositivos/)).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(signOuts()).toEqual([]);
    expect(screen.getByText('con sesión')).toBeTruthy();
    expect(localStorage.getItem('token')).toBe('t');
  });

  it('confirmed, it ends every session on the server and signs out here', async () => {
    renderShell();
    await userEvent.click(await screen.findByRole('button', { name: 'Cerrar sesión en todos los dispositivos' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cerrar sesión en todos' }));
    expect(await screen.findByText('sin sesión')).toBeTruthy();
    expect(signOuts()).toEqual(['POST /api/auth/logout-all']);
    expect(localStorage.getItem('token')).toBeNull();
  });

  it('when the server does not confirm, says so and stays signed in, so it can be tried again', async () => {
    api.routes['POST /api/auth/logout-all'] = () => ({ status: 503, body: { error: 'Servicio no disponible' } });
    renderShell();
    await userEvent.click(await screen.findByRole('button', { name: 'Cerrar sesión en todos los dispositivos' }));
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Cerrar sesión en todos' }));
    expect(await screen.findByText('Servicio no disponible')).toBeTruthy();
    expect(screen.getByText('con sesión')).toBeTruthy();
    expect(localStorage.getItem('token')).toBe('t');
    const again = within(screen.getByRole('dialog')).getByRole('button', { name: 'Cerrar sesión en todos' });
    expect(again).toHaveProperty('disabled', false);
  });
});
