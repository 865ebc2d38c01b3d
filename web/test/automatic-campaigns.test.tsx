import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { NewCampaignPage } from '../src/features/campaigns/components/new-campaign-page';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { campaign, renderAt, stubApi, type ApiStub, type Routes } from './utils';

/** «Campaña automática»: the form's kind with its trigger, and the detail screen's figures. */
let routes: Routes;
let api: ApiStub;

const PIPELINES = [
  { id: 7001, name: 'Embudo de ventas', is_main: true, statuses: [{ id: 81, name: 'Leads entrantes' }, { id: 82, name: 'Contacto inicial' }] },
  { id: 7002, name: 'Postventa', is_main: false, statuses: [{ id: 91, name: 'Seguimiento' }] },
];

beforeEach(() => {
  routes = {
    'GET /api/kommo/accounts': () => ({ body: [{ id: 1, subdomain: 'miempresa', sync_total_contacts: 10 }] }),
    'GET /api/kommo/accounts/1/pipelines': () => ({ body: PIPELINES }),
    'GET /api/whatsapp-accounts': () => ({ body: [{ id: 1, name: 'Ventas', phone_number: '+5491100000001', display_phone_number: null, is_active: true }] }),
    'GET /api/templates/account/1': () => ({
      body: [
        {
          id: 1, whatsapp_account_id: 1, kommo_account_id: null, meta_id: null, name: 'bienvenida', language: 'es', category: 'utility',
          status: 'approved', components: [{ type: 'BODY', text: 'Hola {{1}}' }], rejection_reason: null, submission_error: null,
          has_variables: true, created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z',
        },
      ],
    }),
    'GET /api/contacts/1/tags': () => ({ body: [] }),
    'POST /api/contacts/custom-fields': () => ({ body: [] }),
    'GET /api/contacts/recipient-count': () => ({ body: { count: 7 } }),
    'POST /api/campaigns': () => ({ status: 201, body: { id: 42 } }),
  };
  api = stubApi(routes);
});

describe('the campaign form: «Campaña automática»', () => {
  it('offers the kind, the pipeline and stage pickers, the trigger, delay and re-entry, and posts the trigger', async () => {
    const user = userEvent.setup();
    renderAt('/campaigns/new', <NewCampaignPage />);
    await screen.findByRole('option', { name: 'miempresa' });
    await user.selectOptions(screen.getByLabelText('Tipo de campaña'), 'automatic');
    // No filters, no date: the trigger instead.
    expect(screen.queryByLabelText('Fecha y hora de envío (opcional)')).toBeNull();
    await user.type(screen.getByLabelText('Nombre de la Campaña *'), 'Bienvenida');
    await user.selectOptions(screen.getByLabelText('Cuenta Kommo *'), '1');
    await user.selectOptions(await screen.findByLabelText('Embudo de Kommo *'), '7001');
    await user.selectOptions(screen.getByLabelText('Etapa *'), '82');
    expect(screen.getByRole('option', { name: 'Entra en la etapa' })).toBeTruthy();
    await user.selectOptions(screen.getByLabelText('Cuándo se envía *'), 'created_in');
    await user.clear(screen.getByLabelText('Demora'));
    await user.type(screen.getByLabelText('Demora'), '2');
    await user.selectOptions(screen.getByLabelText('Unidad'), 'hours');
    await user.clear(screen.getByLabelText('Días sin repetir por reingreso'));
    await user.type(screen.getByLabelText('Días sin repetir por reingreso'), '7');
    await user.selectOptions(screen.getByLabelText('Cuenta WhatsApp *'), '1');
    await user.selectOptions(await screen.findByLabelText('Template *'), '1');
    await user.click(screen.getByRole('button', { name: 'Crear Campaña' }));
    await waitFor(() => expect(api.bodies('POST /api/campaigns')).toHaveLength(1));
    const [body] = api.bodies('POST /api/campaigns') as Array<Record<string, unknown>>;
    expect(body).toMatchObject({
      kind: 'automatic',
      name: 'Bienvenida',
      kommo_account_id: 1,
      whatsapp_account_id: 1,
      template_id: 1,
      trigger: { pipeline_id: 7001, status_id: 82, on: 'created_in', delay_seconds: 7200, reentry_days: 7 },
    });
    expect(body).not.toHaveProperty('filters');
  });
});

describe('the detail screen of an automatic campaign', () => {
  it('shows events received, sent, waiting and skipped by reason, and «Programado para …» in the recipients', async () => {
    const auto = campaign({
      id: 5,
      name: 'Bienvenida',
      status: 'sending',
      audience_kind: 'automatic',
      total_recipients: 12,
      messages_sent: 7,
      skipped_count: 3,
      automation: {
        trigger: { pipeline_id: 7001, status_id: 82, on: 'enter', delay_seconds: 3600, reentry_days: 30 },
        events_received: 12,
        waiting: 2,
        next_due_at: '2030-01-02T10:00:00.000Z',
        skipped_by_reason: [
          { reason: 'El lead ya no está en la etapa', count: 2 },
          { reason: 'Sin número de teléfono válido', count: 1 },
        ],
      },
    });
    routes['GET /api/campaigns/5'] = () => ({ body: auto });
    routes['GET /api/campaigns/5/messages'] = () => ({
      body: {
        messages: [
          {
            id: 1, contact_id: null, contact_name: null, phone: null, status: 'waiting', error_code: null, error_message: null, wamid: null,
            attempts: 0, sent_at: null, delivered_at: null, read_at: null, failed_at: null, held: false, lead_id: 31, due_at: '2030-01-02T10:00:00.000Z',
          },
        ],
        total: 1,
        page: 1,
        limit: 50,
      },
    });
    renderAt('/campaigns/5', <CampaignDetailPage />, '/campaigns/:id');
    const card = (await screen.findByRole('heading', { name: 'Campaña automática' })).closest('section, div')!.parentElement!;
    expect(card.textContent).toMatch(/Eventos recibidos\s*12/);
    expect(card.textContent).toMatch(/Enviados\s*7/);
    expect(card.textContent).toMatch(/Programados\s*2/);
    expect(card.textContent).toMatch(/El lead ya no está en la etapa: 2/);
    expect(card.textContent).toMatch(/Entra en la etapa/);
    expect(await screen.findAllByText(/Programado para/)).not.toHaveLength(0);
  });
});
