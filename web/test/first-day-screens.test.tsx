import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { completedSummary } from '../src/components/campaign-status';
import { freeTop, TOAST_MARGIN } from '../src/components/ui/toasts';
import { CampaignDetailPage } from '../src/features/campaigns/components/campaign-detail-page';
import { buttonChoices, fillsAtText } from '../src/features/campaigns/components/follow-up-dialog';
import { DashboardPage } from '../src/features/dashboard/components/dashboard-page';
import { formatDateTime, formatShortDateTime, timeZoneLabel } from '../src/lib/format';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

let api: ApiStub;
beforeEach(() => {
  api = stubApi();
});

describe('a completed campaign in words', () => {
  it('reads "Completada · N enviados de M" with why the rest got no message', () => {
    expect(completedSummary({ status: 'completed', total_recipients: 81, messages_sent: 63, skipped_count: 18, failed_count: 0, unknown_count: 0 })).toBe(
      'Completada · 63 enviados de 81 (18 omitidos)',
    );
    expect(completedSummary({ status: 'completed', total_recipients: 10, messages_sent: 7, skipped_count: 1, failed_count: 2, unknown_count: 0 })).toBe(
      'Completada · 7 enviados de 10 (2 fallidos, 1 omitido)',
    );
    expect(completedSummary({ status: 'completed', total_recipients: 1, messages_sent: 1 })).toBe('Completada · 1 enviado de 1');
    expect(completedSummary({ status: 'sending', total_recipients: 81, messages_sent: 63, skipped_count: 18 })).toBeNull();
  });

  it('stands beside the spec’s percentage on the detail screen', async () => {
    api.routes = {
      'GET /api/campaigns/1': () => ({
        body: campaign({ status: 'completed', started_at: '2025-01-02T10:00:00.000Z', completed_at: '2025-01-02T11:00:00.000Z', total_recipients: 81, messages_sent: 63, skipped_count: 18, pending_count: 0 }),
      }),
      'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    const card = await screen.findByTestId('campaign-progress-card');
    expect(card.textContent).toContain('77%');
    expect(card.textContent).toContain('Completada · 63 enviados de 81 (18 omitidos)');
  });
});

describe('"Mensajes Pendientes"', () => {
  it('shows the server’s count, deferred included, and says how many wait for their retry', async () => {
    api.routes = {
      'GET /api/campaigns': () => ({ body: [campaign({ status: 'completed', deferred_count: 3, total_recipients: 3, messages_sent: 3 })] }),
      'GET /api/kommo/accounts': () => ({ body: [] }),
      'GET /api/dashboard/pending': () => ({ body: { pending_messages: 12, deferred: 3 } }),
      'GET /api/dashboard/activity': () => ({ status: 500, body: { error: 'x' } }),
    };
    renderAt('/dashboard', <DashboardPage />);
    const card = await screen.findByTestId('dashboard-pending');
    await waitFor(() => expect(card.textContent).toBe('Mensajes Pendientes12incluye 3 diferidos que esperan su reintento'));
  });
});

describe('times say their zone', () => {
  it('names the zone of a moment as the browser shows it', () => {
    expect(timeZoneLabel(new Date('2026-11-27T13:24:00Z'), 'America/Argentina/Buenos_Aires')).toBe('GMT-3');
    expect(timeZoneLabel(new Date('2026-11-27T13:24:00Z'), 'Europe/Madrid')).toBe('CET');
    expect(timeZoneLabel(new Date('2026-07-27T13:24:00Z'), 'Europe/Madrid')).toBe('CEST');
    expect(formatDateTime('2026-11-27T13:24:00Z')).toMatch(/\((UTC|GMT[+-]\d{1,2}(:\d{2})?|[A-Z]{3,4})\)$/);
    expect(formatDateTime(null)).toBe('-');
    expect(formatShortDateTime('2026-11-27T13:24:00Z', new Date('2026-12-01T00:00:00Z'))).toMatch(/^27\/11 \d{2}:24$/);
    expect(formatShortDateTime('2025-11-27T13:24:00Z', new Date('2026-12-01T00:00:00Z'))).toMatch(/^27\/11\/2025 \d{2}:24$/);
  });
});

describe('toasts step below the controls they would cover', () => {
  const stack = { left: 900, right: 1264, height: 48 };
  it('stays at the top when nothing is there', () => {
    expect(freeTop(stack, [{ left: 288, right: 400, top: 32, bottom: 70 }], 800)).toBe(TOAST_MARGIN);
  });
  it('moves below a header button, then below the next control it would meet', () => {
    const header = { left: 1087, right: 1248, top: 32, bottom: 68 };
    expect(freeTop(stack, [header], 800)).toBe(76);
    const below = { left: 1100, right: 1200, top: 90, bottom: 130 };
    expect(freeTop(stack, [header, below], 800)).toBe(138);
  });
  it('falls back to the top-right corner when no place fits', () => {
    const wall = Array.from({ length: 20 }, (_, i) => ({ left: 1000, right: 1200, top: i * 40, bottom: i * 40 + 38 }));
    expect(freeTop(stack, wall, 800)).toBe(TOAST_MARGIN);
  });
});

describe('follow-up dialog', () => {
  it('offers the template’s quick-reply buttons, then other tapped texts, with their taps', () => {
    const template = {
      components: [
        { type: 'BODY', text: 'Hola' },
        { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Sí' }, { type: 'URL', text: 'Web', url: 'https://x' }, { type: 'QUICK_REPLY', text: 'No' }] },
      ],
    };
    expect(buttonChoices(template, [{ button: 'No', taps: 4 }, { button: 'Quizás', taps: 1 }])).toEqual([
      { text: 'Sí', taps: 0 },
      { text: 'No', taps: 4 },
      { text: 'Quizás', taps: 1 },
    ]);
    expect(buttonChoices(undefined, [])).toEqual([]);
  });

  it('says when an empty "No leyeron" group fills, with the zone', () => {
    const text = fillsAtText('unread', '24', { available_from: '2026-11-27T13:24:00.000Z' });
    expect(text).toMatch(/^No leyeron tras 24\sh: disponible desde el 27\/11 \d{2}:24 \((UTC|GMT[+-]\d+|[A-Z]{3,4})\)$/);
    expect(fillsAtText('replied', '24', { available_from: '2026-11-27T13:24:00.000Z' })).toBeNull();
    expect(fillsAtText('unread', '24', { available_from: null })).toBeNull();
  });

  it('lets the operator pick a button, and warns that the cap is off for people messaged in the last 24 h', async () => {
    const sent = campaign({
      id: 1,
      name: 'Promo',
      status: 'completed',
      template_id: 1,
      started_at: '2025-01-02T10:00:00.000Z',
      completed_at: '2025-01-02T11:00:00.000Z',
      messages_sent: 10,
      pending_count: 0,
      replies: { replied: 2, accepted: 10, rate: 0.2, taps: [{ button: 'Más tarde', taps: 2, recipients: 2 }] },
    });
    api.routes = {
      'GET /api/campaigns/1': () => ({ body: sent }),
      'GET /api/campaigns/1/messages': () => ({ body: { messages: [], total: 0, page: 1, limit: 50 } }),
      'GET /api/templates/account/1': () => ({
        body: [
          {
            id: 1,
            name: 'promo',
            language: 'es',
            status: 'approved',
            components: [{ type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Me interesa' }, { type: 'QUICK_REPLY', text: 'Más tarde' }] }],
          },
        ],
      }),
      'GET /api/campaigns/1/follow-up/count': (url) => {
        const group = url.searchParams.get('group')!;
        const button = url.searchParams.get('button');
        const count = group === 'tapped' ? (button === 'Más tarde' ? 2 : 0) : 5;
        return { body: { group, label: group, count, available_from: null, messaged_last_24h: group === 'replied' ? 2 : 0, frequency_cap: null } };
      },
    };
    renderAt('/campaigns/1', <CampaignDetailPage />, '/campaigns/:id');
    await userEvent.click(await screen.findByRole('button', { name: 'Nueva campaña para…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nueva campaña para…' });
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Tocaron un botón' }));
    const first = await within(dialog).findByRole('radio', { name: '«Me interesa»' });
    expect(first).toHaveProperty('checked', true);
    expect(within(dialog).queryByRole('textbox', { name: 'Texto del botón' })).toBeNull();
    await userEvent.click(within(dialog).getByRole('radio', { name: '«Más tarde» · 2 toques' }));
    await waitFor(() => expect(screen.getByTestId('follow-up-count').textContent).toMatch(/^2 contactos en este grupo/));
    expect(screen.queryByTestId('follow-up-recent')).toBeNull();

    await userEvent.click(within(dialog).getByRole('radio', { name: 'Respondieron' }));
    const recent = await within(dialog).findByTestId('follow-up-recent');
    expect(recent.textContent).toMatch(/^El tope de frecuencia está desactivado\. 2 de estas personas recibieron un mensaje en las últimas 24\sh/);
  }, 20_000);
});
