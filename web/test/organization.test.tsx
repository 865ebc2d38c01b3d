import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AuthProvider } from '../src/features/auth/auth-context';
import { AcceptInvitationPage } from '../src/features/organization/components/accept-invitation-page';
import { OrganizationPage } from '../src/features/organization/components/organization-page';
import { renderAt, stubApi } from './utils';

const user = { id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: 'Pérez', created_at: '2025-01-01T00:00:00.000Z' };
const me = (role: 'owner' | 'viewer') => ({
  user,
  organization: { id: 1, name: 'Ana Pérez' },
  role,
  permissions: role === 'owner' ? ['member', 'organization.manage', 'organization.own'] : ['member'],
  scope: { whatsapp_account_ids: [], kommo_account_ids: [] },
  organizations: [{ id: 1, name: 'Ana Pérez', role }],
});
const invitation = {
  id: 7,
  email: 'luz@example.com',
  role: 'editor',
  scope: { whatsapp_account_ids: [], kommo_account_ids: [3] },
  status: 'pending',
  mail_status: 'not_sent',
  mail_error: null,
  invited_by: 'Ana Pérez',
  expires_at: '2030-01-01T00:00:00.000Z',
  created_at: '2025-01-01T00:00:00.000Z',
  accepted_at: null,
};
const TOKEN = 'a'.repeat(43);

describe('«Organización»', () => {
  it('lists members with their role, and invites with role and scope, showing the link to copy', async () => {
    const api = stubApi({
      'GET /api/me': () => ({ body: me('owner') }),
      'GET /api/organization/members': () => ({
        body: [
          { user_id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: 'Pérez', role: 'owner', scope: { whatsapp_account_ids: [], kommo_account_ids: [] }, joined_at: '2025-01-01T00:00:00.000Z' },
          { user_id: 2, email: 'leo@example.com', first_name: '', last_name: '', role: 'viewer', scope: { whatsapp_account_ids: [5], kommo_account_ids: [] }, joined_at: '2025-01-01T00:00:00.000Z' },
        ],
      }),
      'GET /api/organization/invitations': () => ({ body: [] }),
      'GET /api/organization/settings': () => ({ body: { approval: { mode: 'off', min_recipients: null, min_cost_usd: null }, activity_retention_days: 365 } }),
      'GET /api/whatsapp-accounts': () => ({ body: [] }),
      'GET /api/kommo/accounts': () => ({ body: [{ id: 3, subdomain: 'demo' }] }),
      'POST /api/organization/invitations': () => ({ status: 201, body: { invitation, link: `http://localhost:3000/invitations/${TOKEN}` } }),
    });
    renderAt('/organization', <OrganizationPage />);
    const members = await screen.findByRole('region', { name: 'Lista de miembros' });
    expect(within(members).getByText('Propietario')).toBeTruthy();
    expect(within(members).getByText('Lector')).toBeTruthy();
    // Nobody edits themselves here; the other member can be edited and removed.
    expect(within(members).queryByRole('button', { name: 'Editar a ana@example.com' })).toBeNull();
    expect(within(members).getByRole('button', { name: 'Quitar a leo@example.com' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Invitar miembro' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText(/Email/), { target: { value: 'luz@example.com' } });
    fireEvent.change(within(dialog).getByLabelText('Rol'), { target: { value: 'editor' } });
    fireEvent.click(await within(dialog).findByLabelText('demo'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Invitar' }));
    await waitFor(() => expect(api.bodies('POST /api/organization/invitations')).toHaveLength(1));
    expect(api.bodies('POST /api/organization/invitations')[0]).toEqual({
      email: 'luz@example.com',
      role: 'editor',
      scope: { whatsapp_account_ids: [], kommo_account_ids: [3] },
    });
    const link = (await screen.findByLabelText('Enlace de la invitación')) as HTMLInputElement;
    expect(link.value).toBe(`http://localhost:3000/invitations/${TOKEN}`);
  });

  it('tells a member without the permission, instead of failing', async () => {
    stubApi({ 'GET /api/me': () => ({ body: me('viewer') }) });
    renderAt('/organization', <OrganizationPage />);
    expect(await screen.findByText(/no permite administrar/)).toBeTruthy();
  });
});

describe('the invitation page', () => {
  const preview = { organization: 'Ana Pérez', email: 'luz@example.com', role: 'editor', invited_by: 'Ana Pérez', expires_at: '2030-01-01T00:00:00.000Z' };

  it('signed out: signs up with the invited e-mail locked and the token', async () => {
    const api = stubApi({
      [`GET /api/invitations/${TOKEN}`]: () => ({ body: preview }),
      'POST /api/auth/register': () => ({ status: 201, body: { token: 'nuevo', user: { ...user, email: 'luz@example.com' } } }),
    });
    localStorage.clear();
    renderAt(`/invitations/${TOKEN}`, <AuthProvider><AcceptInvitationPage /></AuthProvider>, '/invitations/:token');
    const email = (await screen.findByLabelText(/Email/)) as HTMLInputElement;
    expect(email.value).toBe('luz@example.com');
    expect(email.readOnly).toBe(true);
    expect(screen.getByRole('link', { name: 'Inicia sesión' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/^Contraseña/), { target: { value: 'secreto123' } });
    fireEvent.change(screen.getByLabelText(/Confirmar Contraseña/), { target: { value: 'secreto123' } });
    fireEvent.click(screen.getByRole('button', { name: 'Crear Cuenta' }));
    await waitFor(() => expect(api.bodies('POST /api/auth/register')).toHaveLength(1));
    expect(api.bodies('POST /api/auth/register')[0]).toMatchObject({ email: 'luz@example.com', invitation_token: TOKEN });
  });

  it('signed in with the invited e-mail: «Unirme» accepts and keeps the new session', async () => {
    const api = stubApi({
      [`GET /api/invitations/${TOKEN}`]: () => ({ body: { ...preview, email: 'ANA@example.com' } }),
      'GET /api/auth/me': () => ({ body: user }),
      'POST /api/invitations/accept': () => ({ body: { token: 'otra-sesion', me: me('owner') } }),
    });
    renderAt(`/invitations/${TOKEN}`, <AuthProvider><AcceptInvitationPage /></AuthProvider>, '/invitations/:token');
    fireEvent.click(await screen.findByRole('button', { name: 'Unirme' }));
    await waitFor(() => expect(api.bodies('POST /api/invitations/accept')).toEqual([{ token: TOKEN }]));
    await waitFor(() => expect(localStorage.getItem('token')).toBe('otra-sesion'));
  });

  it('a dead link says so', async () => {
    stubApi({ [`GET /api/invitations/${TOKEN}`]: () => ({ status: 404, body: { error: 'La invitación no existe, ya se usó, fue revocada o venció' } }) });
    localStorage.clear();
    renderAt(`/invitations/${TOKEN}`, <AuthProvider><AcceptInvitationPage /></AuthProvider>, '/invitations/:token');
    expect(await screen.findByRole('alert')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Invitación no válida' })).toBeTruthy();
  });
});
