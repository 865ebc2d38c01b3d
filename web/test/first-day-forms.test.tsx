import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { EditCampaignPage } from '../src/features/campaigns/components/new-campaign-page';
import { sendLabel } from '../src/features/campaigns/components/start-campaign-dialog';
import { preflight } from './preflight-fixture';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});

const detailRoutes = (c: ReturnType<typeof campaign>) => ({
  'GET /api/campaigns/1': () => ({ body: c }),
  'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
});

describe('the send confirmation', { timeout: 45_000 }, () => {
  it('says how many people the button reaches, grouped as a person reads it', () => {
    expect(sendLabel(2036)).toBe('Enviar a 2.036 personas');
    expect(sendLabel(1)).toBe('Enviar a 1 persona');
    expect(sendLabel(36)).toBe('Enviar a 36 personas');
  });

  it('shows the pre-flight in short before a draft is sent, and sends only on the labelled button', async () => {
    api.routes = {
      ...detailRoutes(campaign({ sending_hours: { days: [1, 2, 3, 4, 5], start: '09:00', end: '20:00', skip_holidays: false } })),
      'GET /api/campaigns/1/preflight': () => ({
        body: preflight(2036, {
          matched: 2100,
          excluded: [
            { reason: 'blacklisted', label: 'en lista negra', count: 40 },
            { reason: 'invalid_phone', label: 'sin teléfono válido', count: 24 },
            { reason: 'duplicate', label: 'duplicado', count: 0 },
          ],
          budget: { daily_limit: 1000, used: 0, left: 1000, waves: 3 },
        }),
      }),
      'POST /api/campaigns/1/start': () => ({ body: campaign({ status: 'sending' }) }),
    };
    const user = userEvent.setup();
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await user.click(await screen.findByRole('button', { name: 'Iniciar' }));
    const dialog = await screen.findByRole('dialog', { name: '¿Enviar «Promo»?' });
    const send = await within(dialog).findByRole('button', { name: 'Enviar a 2.036 personas' });
    expect(within(dialog).getByTestId('confirm-attempted').textContent).toBe('2.036 de 2.100');
    expect(within(dialog).getByTestId('confirm-excluded').textContent).toBe('En lista negra: 40Sin teléfono válido: 24');
    expect(within(dialog).getByTestId('confirm-hours').textContent).toMatch(/^Lun, Mar, Mié, Jue, Vie · 09:00–20:00/);
    expect(within(dialog).getByTestId('confirm-budget').textContent).toContain('Se enviará en 3 días');
    expect(within(dialog).getByTestId('confirm-cost').textContent).toMatch(/US\$|USD|\$/);
    // Focus starts on «Cancelar»: Enter right after opening never sends.
    expect(document.activeElement?.textContent).toBe('Cancelar');
    await user.click(within(dialog).getByRole('button', { name: 'Cancelar' }));
    expect(api.calls()).not.toContain('POST /api/campaigns/1/start');

    await user.click(screen.getByRole('button', { name: 'Iniciar' }));
    await user.click(await screen.findByRole('button', { name: 'Enviar a 2.036 personas' }));
    expect(await screen.findByText('Campaña iniciada exitosamente')).toBeTruthy();
    expect(api.calls().filter((c) => c === 'POST /api/campaigns/1/start')).toHaveLength(1);
    expect(send.isConnected).toBe(false);
  });

  it('tells a scheduled campaign it is sent now, and refuses to send to nobody', async () => {
    api.routes = {
      ...detailRoutes(campaign({ status: 'scheduled', scheduled_at: '2031-03-04T15:30:00.000Z' })),
      'GET /api/campaigns/1/preflight': () => ({ body: preflight(0, { matched: 3, excluded: [{ reason: 'blacklisted', label: 'en lista negra', count: 3 }] }) }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await userEvent.click(await screen.findByRole('button', { name: 'Iniciar' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/^Estaba programada para el .+: se envía ahora\./)).toBeTruthy();
    const send = (await within(dialog).findByRole('button', { name: 'Enviar a 0 personas' })) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    expect(within(dialog).getByText(/Nadie recibiría este mensaje/)).toBeTruthy();
  });

  it('asks lightly before resuming a paused campaign: the people still pending', async () => {
    api.routes = {
      ...detailRoutes(campaign({ status: 'paused', started_at: '2025-01-01T10:00:00.000Z', pending_count: 1234, messages_sent: 6 })),
      'POST /api/campaigns/1/start': () => ({ body: campaign({ status: 'sending' }) }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await userEvent.click(await screen.findByRole('button', { name: 'Iniciar' }));
    const dialog = await screen.findByRole('dialog', { name: '¿Reanudar «Promo»?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Enviar a 1.234 personas' }));
    await waitFor(() => expect(api.calls()).toContain('POST /api/campaigns/1/start'));
    expect(api.calls()).not.toContain('GET /api/campaigns/1/preflight');
  });
});

describe('changing a campaign before it sends', { timeout: 45_000 }, () => {
  it('offers Editar and Programar on a draft, Cambiar fecha and Volver a borrador on a scheduled one, nothing once it started', async () => {
    const offered = async (c: ReturnType<typeof campaign>) => {
      api.routes = detailRoutes(c);
      const { unmount } = renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
      await screen.findByRole('heading', { name: 'Promo' });
      const names = ['Editar', 'Programar', 'Cambiar fecha', 'Volver a borrador'].filter(
        (name) => screen.queryByRole('button', { name }) || screen.queryByRole('link', { name }),
      );
      unmount();
      return names;
    };
    expect(await offered(campaign({ status: 'draft' }))).toEqual(['Editar', 'Programar']);
    expect(await offered(campaign({ status: 'scheduled', scheduled_at: '2031-03-04T15:30:00.000Z' }))).toEqual(['Editar', 'Cambiar fecha', 'Volver a borrador']);
    expect(await offered(campaign({ status: 'paused', started_at: '2025-01-01T10:00:00.000Z' }))).toEqual([]);
    expect(await offered(campaign({ status: 'sending', started_at: '2025-01-01T10:00:00.000Z' }))).toEqual([]);
  });

  it('takes a scheduled campaign back to draft, and moves it to another time', async () => {
    api.routes = {
      ...detailRoutes(campaign({ status: 'scheduled', scheduled_at: '2031-03-04T15:30:00.000Z' })),
      'PUT /api/campaigns/1': () => ({ body: campaign() }),
    };
    const user = userEvent.setup();
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await user.click(await screen.findByRole('button', { name: 'Volver a borrador' }));
    expect(await screen.findByText('La campaña volvió a borrador')).toBeTruthy();
    expect(api.bodies('PUT /api/campaigns/1')).toEqual([{ scheduled_at: null }]);

    await user.click(screen.getByRole('button', { name: 'Cambiar fecha' }));
    const dialog = await screen.findByRole('dialog', { name: 'Cambiar fecha de envío' });
    const input = within(dialog).getByLabelText('Fecha y hora de envío') as HTMLInputElement;
    await user.clear(input);
    await user.type(input, '2001-01-01T10:00');
    await user.click(within(dialog).getByRole('button', { name: 'Guardar fecha' }));
    expect(await within(dialog).findByText('La fecha de programación debe ser futura')).toBeTruthy();
    await user.clear(input);
    await user.type(input, '2032-05-06T07:08');
    await user.click(within(dialog).getByRole('button', { name: 'Guardar fecha' }));
    expect(await screen.findByText('Fecha de envío actualizada')).toBeTruthy();
    const sent = api.bodies('PUT /api/campaigns/1')[1] as { scheduled_at: string };
    expect(new Date(sent.scheduled_at).getTime()).toBe(new Date('2032-05-06T07:08').getTime());
  });

  it('fills the edit form with the saved values and saves every field with PUT', async () => {
    const saved = campaign({
      status: 'scheduled',
      name: 'Promo',
      description: 'Clientes VIP',
      template_id: 1,
      scheduled_at: '2031-03-04T15:30:00.000Z',
      filters: { searchQuery: 'Ana', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} },
      sending_hours: { days: [1, 2, 3], start: '10:00', end: '18:00', skip_holidays: false },
    });
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: saved }),
      'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'miempresa', sync_total_contacts: 10 }] }),
      'GET /api/whatsapp-accounts': () => ({ body: [{ id: 1, name: 'Ventas', phone_number: '+5491100000001', display_phone_number: null, is_active: true }] }),
      'GET /api/templates/account/1': () => ({
        body: [1, 2].map((id) => ({ id, whatsapp_account_id: 1, name: `plantilla_${id}`, language: 'es', category: 'marketing', status: 'approved', components: [{ type: 'BODY', text: 'Hola' }] })),
      }),
      'GET /api/contacts/1/tags': () => ({ body: [] }),
      'POST /api/contacts/custom-fields': () => ({ body: [] }),
      'GET /api/contacts/recipient-count': () => ({ body: { count: 4 } }),
      'PUT /api/campaigns/1': () => ({ body: saved }),
    };
    const user = userEvent.setup();
    renderAt('/campaigns/1/edit', <EditCampaignPage />, '/campaigns/:id/edit');
    await screen.findByRole('heading', { name: 'Editar Campaña' });
    expect((screen.getByLabelText('Nombre de la Campaña *') as HTMLInputElement).value).toBe('Promo');
    expect((screen.getByLabelText('Descripción') as HTMLTextAreaElement).value).toBe('Clientes VIP');
    expect((screen.getByLabelText('Cuenta Kommo *') as HTMLSelectElement).value).toBe('1');
    expect((screen.getByLabelText('Cuenta WhatsApp *') as HTMLSelectElement).value).toBe('1');
    expect(((await screen.findByLabelText('Template *')) as HTMLSelectElement).value).toBe('1');
    expect((screen.getByLabelText('Fecha y hora de envío (opcional)') as HTMLInputElement).value).not.toBe('');

    await user.clear(screen.getByLabelText('Nombre de la Campaña *'));
    await user.type(screen.getByLabelText('Nombre de la Campaña *'), 'Promo de invierno');
    await user.selectOptions(screen.getByLabelText('Template *'), '2');
    // Emptying the date takes it back to draft.
    await user.clear(screen.getByLabelText('Fecha y hora de envío (opcional)'));
    await user.click(screen.getByRole('button', { name: 'Guardar Cambios' }));
    expect(await screen.findByText('Campaña actualizada exitosamente')).toBeTruthy();
    expect(await screen.findByText('pantalla de detalle')).toBeTruthy();
    expect(api.bodies('PUT /api/campaigns/1')).toEqual([
      {
        name: 'Promo de invierno',
        description: 'Clientes VIP',
        kommo_account_id: 1,
        whatsapp_account_id: 1,
        template_id: 2,
        deferred_max_attempts: 2,
        deferred_window_hours: 72,
        filters: { searchQuery: 'Ana', tags: [], tagOperator: 'OR', customFieldFilters: {} },
        scheduled_at: null,
        sending_hours: { days: [1, 2, 3], start: '10:00', end: '18:00', skip_holidays: false },
      },
    ]);
  });

  it('keeps a follow-up’s fixed contact list: no filters in the form, none in the PUT', async () => {
    const saved = campaign({ audience_kind: 'contact_list', name: 'Seguimiento', total_recipients: 4 });
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: saved }),
      'GET /api/campaigns/1/preflight': () => ({ body: preflight(4) }),
      'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'miempresa', sync_total_contacts: 10 }] }),
      'GET /api/whatsapp-accounts': () => ({ body: [{ id: 1, name: 'Ventas', phone_number: '+5491100000001', display_phone_number: null, is_active: true }] }),
      'GET /api/templates/account/1': () => ({
        body: [{ id: 1, whatsapp_account_id: 1, name: 'plantilla_1', language: 'es', category: 'marketing', status: 'approved', components: [{ type: 'BODY', text: 'Hola' }] }],
      }),
      'PUT /api/campaigns/1': () => ({ body: saved }),
    };
    const user = userEvent.setup();
    renderAt('/campaigns/1/edit', <EditCampaignPage />, '/campaigns/:id/edit');
    await screen.findByRole('heading', { name: 'Editar Campaña' });
    expect((screen.getByLabelText('Cuenta Kommo *') as HTMLSelectElement).disabled).toBe(true);
    expect(screen.queryByText('Filtros de Contactos')).toBeNull();
    expect(await screen.findByText('contactos de la lista fija', { exact: false })).toBeTruthy();
    await user.type(screen.getByLabelText('Descripción'), ' nueva');
    await user.click(screen.getByRole('button', { name: 'Guardar Cambios' }));
    expect(await screen.findByText('Campaña actualizada exitosamente')).toBeTruthy();
    const [body] = api.bodies('PUT /api/campaigns/1') as Array<Record<string, unknown>>;
    expect(body).toMatchObject({ name: 'Seguimiento', description: 'Descripción de prueba nueva' });
    expect(body).not.toHaveProperty('filters');
    expect(body).not.toHaveProperty('kommo_account_id');
    expect(api.calls()).not.toContain('POST /api/campaigns/preflight');
  });

  it('does not open the form of a campaign that already started', async () => {
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: campaign({ status: 'paused', started_at: '2025-01-01T10:00:00.000Z' }) }),
      'GET /api/kommo/accounts': () => ({ body: [] }),
      'GET /api/whatsapp-accounts': () => ({ body: [] }),
    };
    renderAt('/campaigns/1/edit', <EditCampaignPage />, '/campaigns/:id/edit');
    expect(await screen.findByText('Solo se puede editar una campaña en borrador o programada que aún no empezó')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Volver a la campaña' }).getAttribute('href')).toBe('/campaigns/1');
  });
});
