import { screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { recipientBadge } from '../src/features/campaigns/components/recipient-status';
import { TemplatesPage } from '../src/features/templates/components/templates-page';
import { categoryChangeNotice } from '../src/lib/template-labels';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

/** Template risk on screen: pause ladder labels, category changes, held messages. */
let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});

const waAccount = { id: 7, name: 'Ventas', phone_number: '+5491100000000', display_phone_number: null, kommo_account_id: null };
const base = {
  whatsapp_account_id: 7, kommo_account_id: null, meta_id: '1', language: 'es', category: 'marketing', status: 'approved',
  rejection_reason: null, submission_error: null, has_variables: false, parameter_format: 'POSITIONAL', quality_score: null,
  status_detail: null, category_change: null, campaign_compatible: true, incompatible_reason: null,
  created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z', components: [{ type: 'BODY', text: 'Hola' }],
};
const IMPENDING = { kind: 'impending' as const, from: 'UTILITY', to: 'MARKETING', at: '2099-10-17T14:30:33.000Z' };

describe('templates screen', () => {
  it('names the pause of the ladder, the quality flag and an announced category change in Spanish', async () => {
    api.routes = {
      'GET /api/whatsapp-accounts': () => ({ body: [waAccount] }),
      'GET /api/templates/account/7': () => ({
        body: [
          { ...base, id: 1, name: 'pausada', status: 'paused', status_detail: 'SECOND_PAUSE' },
          { ...base, id: 2, name: 'marcada', status_detail: 'FLAGGED' },
          { ...base, id: 3, name: 'recategorizada', category: 'utility', category_change: IMPENDING },
        ],
      }),
    };
    renderAt('/templates', <TemplatesPage />);
    const [paused, flagged, recategorized] = await screen.findAllByTestId('template-item');
    expect(within(paused!).getByText('Pausada · 2.ª pausa: 6 horas')).toBeTruthy();
    expect(within(flagged!).getByText('Aprobada')).toBeTruthy();
    expect(within(flagged!).getByText('Marcada por baja calidad')).toBeTruthy();
    expect(within(recategorized!).getByTestId('template-category-change').textContent).toMatch(/de utility a marketing el .*como marketing/);
  });
});

describe('campaign detail', () => {
  it('warns about the template’s coming category change and counts the messages Meta holds', async () => {
    api.routes = {
      'GET /api/campaigns/1': () => ({
        body: campaign({
          status: 'sending',
          held_count: 3,
          template_risk: { status: 'approved', status_detail: null, category: 'utility', category_change: IMPENDING },
        }),
      }),
      'GET /api/campaigns/1/messages': () => ({
        body: {
          messages: [
            { id: 9, contact_id: 1, contact_name: 'Ana', phone: '+5491100000001', status: 'sent', error_code: null, error_message: null,
              wamid: 'wamid.1', attempts: 1, sent_at: '2025-01-01T10:00:00Z', delivered_at: null, read_at: null, failed_at: null, held: true },
          ],
          total: 1, page: 1, limit: 50,
        },
      }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    expect((await screen.findByTestId('template-risk')).textContent).toMatch(/Meta cambiará la categoría de esta plantilla de utility a marketing/);
    expect(screen.getByTestId('campaign-held').textContent).toMatch(/Retenidos por Meta: 3/);
    expect((await screen.findAllByText('Retenido por Meta')).length).toBeGreaterThan(0);
  });

  it('says nothing when the template has no news', async () => {
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: campaign({ status: 'sending', template_risk: { status: 'approved', status_detail: null, category: 'marketing', category_change: null } }) }),
      'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await screen.findByRole('heading', { name: 'Promo' });
    expect(screen.queryByTestId('template-risk')).toBeNull();
    expect(screen.queryByTestId('campaign-held')).toBeNull();
  });
});

describe('labels', () => {
  it('a held message is «Retenido por Meta» until Meta reports it; a completed change says it happened', () => {
    expect(recipientBadge({ status: 'sent', held: true }).label).toBe('Retenido por Meta');
    expect(recipientBadge({ status: 'delivered', held: true }).label).toBe('Entregado');
    expect(categoryChangeNotice({ kind: 'completed', from: 'UTILITY', to: 'MARKETING', at: null }, (s) => s)).toBe(
      'Meta cambió la categoría de esta plantilla de utility a marketing.',
    );
    // An impending change long past is no longer news.
    expect(categoryChangeNotice({ ...IMPENDING, at: '2020-01-01T00:00:00Z' }, (s) => s)).toBeNull();
  });
});
