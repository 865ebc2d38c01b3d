import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { NewCampaignPage } from '../src/features/campaigns/components/new-campaign-page';
import { campaign, renderAt, stubApi, type ApiStub, type Routes } from './utils';

/** Several numbers in one campaign: «Enviar también desde» and «Números de la campaña». */
const template = (id: number, accountId: number, status = 'approved') => ({
  id,
  whatsapp_account_id: accountId,
  kommo_account_id: null,
  meta_id: null,
  name: 'promo',
  language: 'es',
  category: 'marketing',
  status,
  components: [{ type: 'BODY', text: 'Hola' }],
  rejection_reason: null,
  submission_error: null,
  has_variables: false,
  created_at: '2025-01-01T00:00:00Z',
  updated_at: '2025-01-01T00:00:00Z',
});
const account = (id: number, name: string, portfolio: string, rate: number, extra: Record<string, unknown> = {}) => ({
  id,
  name,
  phone_number: `+549110000000${id}`,
  display_phone_number: null,
  is_active: true,
  quality_rating: 'GREEN',
  business_account_id: portfolio,
  business_portfolio_id: null,
  rate_per_second: rate,
  ...extra,
});

let routes: Routes;
let api: ApiStub;
beforeEach(() => {
  routes = {
    'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'miempresa', sync_total_contacts: 10 }] }),
    'GET /api/whatsapp-accounts': () => ({
      body: [
        account(1, 'Ventas', 'W1', 80),
        account(2, 'Norte', 'W1', 80, { quality_rating: 'RED' }),
        account(3, 'Otra empresa', 'W9', 80),
        account(4, 'Soporte', 'W1', 20),
        account(5, 'Sur', 'W1', 40),
      ],
    }),
    'GET /api/templates/account/1': () => ({ body: [template(11, 1)] }),
    'GET /api/templates/account/2': () => ({ body: [template(12, 2)] }),
    'GET /api/templates/account/3': () => ({ body: [template(13, 3)] }),
    'GET /api/templates/account/4': () => ({ body: [template(14, 4, 'pending')] }),
    'GET /api/templates/account/5': () => ({ body: [template(15, 5)] }),
    'GET /api/contacts/1/tags': () => ({ body: [] }),
    'POST /api/contacts/custom-fields': () => ({ body: [] }),
    'GET /api/contacts/recipient-count': () => ({ body: { count: 7 } }),
    'POST /api/campaigns/preflight': () => ({ status: 500, body: {} }),
    'POST /api/campaigns': () => ({ status: 201, body: { id: 42 } }),
  };
  api = stubApi(routes);
});

describe('«Enviar también desde» on the campaign form', () => {
  it('offers the numbers of the portfolio, lets only those with the template approved be ticked, and sends them all', async () => {
    const user = userEvent.setup();
    renderAt('/campaigns/new', <NewCampaignPage />);
    await screen.findByRole('option', { name: 'miempresa' });
    await user.type(screen.getByLabelText('Nombre de la Campaña *'), 'Dos números');
    await user.selectOptions(screen.getByLabelText('Cuenta Kommo *'), '1');
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    await user.selectOptions(await screen.findByLabelText('Template *'), '11');
    const group = await screen.findByRole('group', { name: 'Enviar también desde' });
    // Another portfolio's number is not offered; one without the template approved cannot be ticked.
    expect(within(group).queryByLabelText(/Otra empresa/)).toBeNull();
    await waitFor(() => expect((within(group).getByLabelText(/Soporte/) as HTMLInputElement).disabled).toBe(true));
    expect(within(group).getByText('Sin la plantilla aprobada')).toBeTruthy();
    expect(within(group).getByText('Calidad baja (RED)')).toBeTruthy();
    const sur = within(group).getByLabelText(/Sur/) as HTMLInputElement;
    await waitFor(() => expect(sur.disabled).toBe(false));
    await user.click(sur);
    expect(within(group).getByText('2 números · hasta 120 mensajes por segundo entre todos.')).toBeTruthy();
    // The pre-flight checks every number too (asked once the form stops changing).
    await waitFor(
      () => expect(api.bodies('POST /api/campaigns/preflight').some((b) => JSON.stringify((b as { whatsapp_account_ids?: number[] }).whatsapp_account_ids) === '[1,5]')).toBe(true),
      { timeout: 5_000 },
    );
    await user.click(screen.getByRole('button', { name: 'Crear Campaña' }));
    await waitFor(() => expect(api.bodies('POST /api/campaigns')).toHaveLength(1));
    expect(api.bodies('POST /api/campaigns')[0]).toMatchObject({ whatsapp_account_id: 1, whatsapp_account_ids: [1, 5], template_id: 11 });
  });
});

describe('«Números de la campaña» on the campaign screen', () => {
  it("shows each number's progress, and who waits on a number that does not send", async () => {
    const c = campaign({
      id: 7,
      name: 'Varios',
      status: 'sending',
      total_recipients: 30,
      messages_sent: 15,
      pending_count: 15,
      whatsapp_account_id: 1,
      whatsapp_account_ids: [1, 2],
      numbers: [
        { whatsapp_account_id: 1, name: 'Ventas', phone: '+54 9 11 4001-0000', rate_per_second: 80, assigned: 15, pending: 0, sent: 15, failed: 0, waiting: 0, blocked_reason: null },
        { whatsapp_account_id: 2, name: 'Norte', phone: null, rate_per_second: 80, assigned: 15, pending: 15, sent: 0, failed: 0, waiting: 15, blocked_reason: 'Calidad baja (RED)' },
      ],
    });
    routes['GET /api/campaigns/7'] = () => ({ body: c });
    routes['GET /api/campaigns/7/messages'] = () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } });
    renderAt('/campaigns/7', <CampaignDetailPage />, '/campaigns/:id');
    const card = (await screen.findByRole('heading', { name: 'Números de la campaña' })).closest('div')!;
    expect(within(card).getByText(/15 personas esperan a que su número vuelva a enviar/)).toBeTruthy();
    expect(within(card).getByRole('progressbar', { name: 'Progreso de Ventas (+54 9 11 4001-0000)' }).getAttribute('aria-valuenow')).toBe('100');
    expect(within(card).getByRole('status').textContent).toBe('No envía: Calidad baja (RED). 15 personas asignadas a este número esperan.');
  });
});
