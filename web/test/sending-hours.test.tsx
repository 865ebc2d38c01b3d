import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignHoursNote, campaignHoursNote } from '@/components/campaign-hours-note';
import { describeSendingHours } from '@/features/campaigns/components/campaign-hours-card';
import { NewCampaignPage } from '../src/features/campaigns/components/new-campaign-page';
import { campaign, renderAt, stubApi, type ApiStub, type Routes } from './utils';

let routes: Routes;
let api: ApiStub;

beforeEach(() => {
  routes = {
    'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'miempresa', sync_total_contacts: 10 }] }),
    'GET /api/whatsapp-accounts': () => ({
      body: [
        { id: 1, name: 'Ventas', phone_number: '+5491100000001', display_phone_number: null, is_active: true, default_sending_hours: { days: [1, 2, 3, 4, 5], start: '09:00', end: '20:00', skip_holidays: true } },
        { id: 2, name: 'Soporte', phone_number: '+5491100000002', display_phone_number: null, is_active: true, default_sending_hours: null },
      ],
    }),
    'GET /api/templates/account/1': () => ({
      body: [
        {
          id: 1, whatsapp_account_id: 1, kommo_account_id: null, meta_id: null, name: 'promo', language: 'es', category: 'marketing', status: 'approved',
          components: [{ type: 'BODY', text: 'Hola' }], rejection_reason: null, submission_error: null, has_variables: false,
          created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z',
        },
      ],
    }),
    'GET /api/templates/account/2': () => ({ body: [] }),
    'GET /api/contacts/1/tags': () => ({ body: [] }),
    'POST /api/contacts/custom-fields': () => ({ body: [] }),
    'GET /api/contacts/recipient-count': () => ({ body: { count: 7 } }),
    'POST /api/campaigns': () => ({ status: 201, body: { id: 42 } }),
  };
  api = stubApi(routes);
});

describe('"Horario de envío" in the new-campaign form', () => {
  it("shows the number's default, lets the operator change it, refuses an empty day list, and sends it", async () => {
    const user = userEvent.setup();
    renderAt('/campaigns/new', <NewCampaignPage />);
    await screen.findByRole('option', { name: 'miempresa' });
    const section = () => screen.getByTestId('sending-hours');
    const toggle = () => screen.getByLabelText('Enviar solo dentro de un horario') as HTMLInputElement;
    expect(toggle().checked).toBe(false);
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    // The number's default: weekdays 09:00–20:00, holidays skipped.
    await waitFor(() => expect(toggle().checked).toBe(true));
    expect((screen.getByLabelText('Desde') as HTMLInputElement).value).toBe('09:00');
    expect((screen.getByLabelText('Omitir los feriados del país del destinatario') as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText('Sáb') as HTMLInputElement).checked).toBe(false);

    await user.type(screen.getByLabelText('Nombre de la Campaña *'), 'Noche');
    await user.selectOptions(screen.getByLabelText('Cuenta Kommo *'), '1');
    await user.selectOptions(await screen.findByLabelText('Template *'), '1');
    // No day: a Spanish error, nothing sent.
    for (const d of ['Lun', 'Mar', 'Mié', 'Jue', 'Vie']) await user.click(screen.getByLabelText(d));
    expect(section().textContent).toContain('Elige al menos un día para el horario de envío');
    await user.click(screen.getByRole('button', { name: /Crear Campaña/ }));
    expect(api.bodies('POST /api/campaigns')).toHaveLength(0);

    // Friday and Saturday nights, across midnight.
    await user.click(screen.getByLabelText('Vie'));
    await user.click(screen.getByLabelText('Sáb'));
    const start = screen.getByLabelText('Desde');
    await user.clear(start);
    await user.type(start, '21:00');
    const end = screen.getByLabelText('Hasta');
    await user.clear(end);
    await user.type(end, '01:30');
    expect(section().textContent).toContain('La ventana cruza la medianoche');
    await user.click(screen.getByLabelText('Omitir los feriados del país del destinatario'));
    await user.click(screen.getByRole('button', { name: /Crear Campaña/ }));
    await waitFor(() => expect(api.bodies('POST /api/campaigns')).toHaveLength(1));
    expect((api.bodies('POST /api/campaigns')[0] as { sending_hours: unknown }).sending_hours).toEqual({ days: [5, 6], start: '21:00', end: '01:30', skip_holidays: false });
  });

  it('turning the section off sends null (no hours, whatever the default)', async () => {
    const user = userEvent.setup();
    renderAt('/campaigns/new', <NewCampaignPage />);
    await screen.findByRole('option', { name: 'miempresa' });
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    await waitFor(() => expect((screen.getByLabelText('Enviar solo dentro de un horario') as HTMLInputElement).checked).toBe(true));
    await user.click(screen.getByLabelText('Enviar solo dentro de un horario'));
    expect(screen.getByText('Sin horario: se envía a cualquier hora.')).toBeTruthy();
    await user.type(screen.getByLabelText('Nombre de la Campaña *'), 'Siempre');
    await user.selectOptions(screen.getByLabelText('Cuenta Kommo *'), '1');
    await user.selectOptions(await screen.findByLabelText('Template *'), '1');
    await user.click(screen.getByRole('button', { name: /Crear Campaña/ }));
    await waitFor(() => expect(api.bodies('POST /api/campaigns')).toHaveLength(1));
    expect((api.bodies('POST /api/campaigns')[0] as { sending_hours: unknown }).sending_hours).toBeNull();
  });
});

describe('the wait outside the hours', () => {
  it('says when it resumes, in the browser time, only while sending and in the future', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    const waiting = campaign({ status: 'sending', hours_wait_until: '2026-11-24T23:00:00Z' });
    expect(campaignHoursNote(waiting, now, 'America/Argentina/Buenos_Aires')).toBe('Fuera del horario de envío · reanuda martes, 24/11, 20:00 (GMT-3)');
    expect(campaignHoursNote(waiting, now, 'Europe/Madrid')).toBe('Fuera del horario de envío · reanuda miércoles, 25/11, 00:00 (CET)');
    expect(campaignHoursNote({ ...waiting, status: 'paused' }, now)).toBeNull();
    expect(campaignHoursNote({ ...waiting, hours_wait_until: '2026-11-24T09:00:00Z' }, now)).toBeNull();
    expect(campaignHoursNote({ ...waiting, hours_wait_until: null }, now)).toBeNull();
  });
  it('renders beside the status', () => {
    render(<CampaignHoursNote campaign={campaign({ status: 'sending', hours_wait_until: new Date(Date.now() + 3_600_000).toISOString() })} />);
    expect(screen.getByTestId('campaign-hours-note').textContent).toMatch(/^Fuera del horario de envío · reanuda /);
  });
  it('the detail card describes the hours', () => {
    expect(describeSendingHours(null)).toBe('Sin horario: se envía a cualquier hora');
    expect(describeSendingHours({ days: [5, 6], start: '21:00', end: '01:30', skip_holidays: true })).toBe(
      'Vie, Sáb · 21:00–01:30 · sin feriados (hora local de cada destinatario)',
    );
  });
});

describe('the defaults and zone settings of the accounts', () => {
  it("the WhatsApp account dialog edits the number's default hours", async () => {
    const { AccountFormModal } = await import('../src/features/whatsapp-accounts/components/account-form-modal');
    const user = userEvent.setup();
    const account = {
      id: 7, name: 'Ventas', phone_number: '+5491100000000', display_phone_number: null, phone_number_id: '123', business_account_id: '456',
      kommo_account_id: null, webhook_verify_token: 'v', notes: null, rate_per_second: 80, is_active: true, default_sending_hours: null,
    } as unknown as import('@masivo/contract/whatsapp-accounts').WhatsAppAccount;
    routes['PUT /api/whatsapp-accounts/7'] = () => ({ body: account });
    renderAt('/whatsapp-accounts', <AccountFormModal open account={account} onClose={() => {}} />);
    await user.click(screen.getByLabelText('Enviar solo dentro de un horario'));
    await user.click(screen.getByLabelText('Sáb'));
    await user.click(screen.getByRole('button', { name: 'Guardar Cambios' }));
    await waitFor(() => expect(api.bodies('PUT /api/whatsapp-accounts/7')).toHaveLength(1));
    expect((api.bodies('PUT /api/whatsapp-accounts/7')[0] as { default_sending_hours: unknown }).default_sending_hours).toEqual({
      days: [1, 2, 3, 4, 5, 6],
      start: '09:00',
      end: '20:00',
      skip_holidays: false,
    });
  });

  it('the Kommo account card sets the zone field and the zone, refusing an unknown zone', async () => {
    const { KommoTimeZoneSettings } = await import('../src/features/kommo-accounts/components/kommo-time-zone-settings');
    const user = userEvent.setup();
    const account = { id: 3, subdomain: 'miempresa', time_zone: 'America/Argentina/Buenos_Aires', time_zone_field: null } as unknown as import('@masivo/contract/kommo-accounts').KommoAccount;
    routes['POST /api/contacts/custom-fields'] = () => ({ body: [{ id: 1, name: 'Zona horaria', type: 'text', code: null }, { id: 2, name: 'Ciudad', type: 'text', code: null }] });
    routes['PUT /api/kommo/accounts/3'] = () => ({ body: account });
    renderAt('/accounts', <KommoTimeZoneSettings account={account} />);
    await user.click(screen.getByText(/^Zona horaria: /));
    await screen.findByRole('option', { name: 'Zona horaria' });
    await user.selectOptions(screen.getByLabelText('Campo de zona horaria'), 'Zona horaria');
    const zone = screen.getByLabelText('Zona horaria de la cuenta');
    await user.clear(zone);
    await user.type(zone, 'Bogota');
    expect(screen.getByText('Zona horaria inválida: usa un nombre como America/Bogota')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Guardar zona horaria' }) as HTMLButtonElement).disabled).toBe(true);
    await user.clear(zone);
    await user.type(zone, 'America/Bogota');
    await user.click(screen.getByRole('button', { name: 'Guardar zona horaria' }));
    await waitFor(() => expect(api.bodies('PUT /api/kommo/accounts/3')).toEqual([{ time_zone_field: 'Zona horaria', time_zone: 'America/Bogota' }]));
  });
});
