import { marketingMessagesState } from '@masivo/contract/marketing-messages';
import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { screen } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { CampaignMarketingCard } from '../src/features/campaigns/components/campaign-marketing-card';
import { CampaignRouteNotice } from '../src/features/campaigns/components/campaign-route-notice';
import { MarketingMessagesStatus } from '../src/features/whatsapp-accounts/components/marketing-messages-status';
import { WhatsAppAccountsPage } from '../src/features/whatsapp-accounts/components/whatsapp-accounts-page';
import { campaign, renderAt, stubApi } from './utils';

/** The Marketing Messages API on screen: the number's state, the form's route and «Vence en …», the campaign's clicks. */
beforeEach(() => {
  stubApi();
});

const state = (onboarding_status: string | null, fallback_at: string | null = null) =>
  marketingMessagesState({ onboarding_status, terms_status: null, checked_at: null, fallback_at, fallback_reason: fallback_at ? 'Meta rechazó la API de marketing para este número.' : null });
const account = (s: ReturnType<typeof state>) => ({ id: 7, name: 'Ventas', marketing_messages: s }) as unknown as WhatsAppAccount;

describe('the number card', () => {
  it('guides the operator to accept the terms, and says when a refusal moved the number to Cloud API', () => {
    renderAt('/', <MarketingMessagesStatus state={state('ELIGIBLE')} />);
    expect(screen.getByText('API de marketing: faltan los términos')).toBeTruthy();
    expect(screen.getByText(/WhatsApp Manager \(Resumen → Alertas → «Aceptar términos»\)/)).toBeTruthy();
  });
  it('shows the fallback', () => {
    renderAt('/', <MarketingMessagesStatus state={state('ONBOARDED', '2026-11-28T10:00:00Z')} />);
    expect(screen.getByText('API de marketing: rechazada, se usa Cloud API')).toBeTruthy();
  });
});

describe('a number Meta restricted, on its card', () => {
  const base = { id: 7, name: 'Ventas', phone_number: '+5491100000000', display_phone_number: null, kommo_account_id: null, is_active: true, is_verified: false,
    verified_name: null, quality_rating: null, daily_message_count: 0, last_message_sent_at: null, rate_per_second: 10, messaging_limit: null, notes: null,
    webhook_url: 'http://x/api/webhooks/whatsapp', webhook_verify_token: 'v' };

  it('says why and until when, and that it takes no new people; nothing when it is not restricted', async () => {
    const restricted = { ...base, restriction: { since: '2026-11-28T10:00:00.000Z', until: '2026-11-29T10:00:00.000Z', reason: 'Meta restringió los mensajes iniciados por la empresa.' } };
    const api = stubApi({ 'GET /api/whatsapp-accounts': () => ({ body: [restricted] }), 'GET /api/whatsapp-accounts/stats': () => ({ body: {} }) });
    const { unmount } = renderAt('/whatsapp-accounts', <WhatsAppAccountsPage />);
    const notice = await screen.findByTestId('number-restricted');
    expect(notice.textContent).toMatch(/^Restringido por Meta: Meta restringió los mensajes iniciados por la empresaHasta el 29\/11\/2026.*No recibe personas nuevas en las campañas con varios números; las que ya tiene esperan\.$/);
    unmount();
    api.routes['GET /api/whatsapp-accounts'] = () => ({ body: [{ ...restricted, restriction: { ...restricted.restriction, until: null, reason: null } }] });
    const second = renderAt('/whatsapp-accounts', <WhatsAppAccountsPage />);
    expect((await screen.findByTestId('number-restricted')).textContent).toMatch(/^Restringido por MetaHasta que Meta lo habilite de nuevo\./);
    second.unmount();
    api.routes['GET /api/whatsapp-accounts'] = () => ({ body: [{ ...base, restriction: null }] });
    renderAt('/whatsapp-accounts', <WhatsAppAccountsPage />);
    await screen.findByRole('button', { name: /Probar/ });
    expect(screen.queryByTestId('number-restricted')).toBeNull();
  });
});

describe('the campaign form', () => {
  it('shows «Vence en …» for a marketing template of an onboarded number', () => {
    renderAt('/', <CampaignRouteNotice template={{ category: 'marketing', message_send_ttl_seconds: 43_200 }} account={account(state('ONBOARDED'))} />);
    expect(screen.getByText(/Se enviará por la API de marketing/)).toBeTruthy();
    expect(screen.getByText('Vence en 12 horas')).toBeTruthy();
  });
  it('says Cloud API and no expiry when the number is not onboarded; nothing for a utility template', () => {
    const { unmount } = renderAt('/', <CampaignRouteNotice template={{ category: 'marketing', message_send_ttl_seconds: 43_200 }} account={account(state('ELIGIBLE'))} />);
    expect(screen.getByText(/Se enviará por Cloud API: faltan los términos/)).toBeTruthy();
    expect(screen.queryByText(/Vence en/)).toBeNull();
    unmount();
    renderAt('/', <CampaignRouteNotice template={{ category: 'utility', message_send_ttl_seconds: null }} account={account(state('ONBOARDED'))} />);
    expect(screen.queryByTestId('campaign-route')).toBeNull();
  });
});

describe('the campaign result', () => {
  const started = { started_at: '2026-11-28T10:00:00Z', status: 'completed' as const };
  it('counts clicks, routes and «Vencidos»', () => {
    const c = campaign({
      ...started,
      marketing_messages: { expired_count: 2, clicked_count: 5, analytics_clicks: 7, analytics_clicks_at: '2026-11-28T11:00:00Z', clicks_available: true, by_route: { messages: 1, marketing_messages: 40 }, expiry_label: 'Vence en 2 días' },
    });
    renderAt('/', <CampaignMarketingCard campaign={c} />);
    expect(screen.getByTestId('mm-clicked').textContent).toBe('5');
    expect(screen.getByTestId('mm-analytics-clicks').textContent).toBe('7');
    expect(screen.getByTestId('mm-expired').textContent).toBe('2');
    expect(screen.getByText('Vence en 2 días')).toBeTruthy();
  });
  it('says «no disponible» where Meta gives no clicks', () => {
    const c = campaign({
      ...started,
      marketing_messages: { expired_count: 0, clicked_count: 0, analytics_clicks: null, analytics_clicks_at: null, clicks_available: false, by_route: { messages: 30, marketing_messages: 0 }, expiry_label: null },
    });
    renderAt('/', <CampaignMarketingCard campaign={c} />);
    expect(screen.getByTestId('mm-clicked').textContent).toBe('no disponible');
    expect(screen.getByTestId('mm-analytics-clicks').textContent).toBe('no disponible');
  });
});
