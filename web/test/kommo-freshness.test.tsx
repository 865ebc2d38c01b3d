import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import type { KommoFreshness as Freshness } from '@masivo/contract/kommo-inbound';
import { KommoFreshness } from '@/features/kommo-accounts/components/kommo-freshness';
import { renderAt, stubApi } from './utils';

const withFreshness = (freshness: Freshness) => ({ id: 3, subdomain: 'miempresa', freshness }) as KommoAccount;

describe('«Mantener contactos al día» on a Kommo account', () => {
  it('shows Kommo\'s webhooks as the source, with the last event', async () => {
    stubApi({});
    renderAt('/kommo', <KommoFreshness account={withFreshness({ keep_fresh: true, source: 'webhooks', hook_status: 'subscribed', last_event_at: '2026-11-24T10:00:00Z', error: null })} />);
    expect(await screen.findByText('Webhooks de Kommo activos')).toBeTruthy();
    expect(screen.getByText(/Último evento:/).textContent).not.toContain('ninguno');
    expect((screen.getByRole('switch', { name: 'Mantener contactos al día' }) as HTMLInputElement).checked).toBe(true);
  });

  it('says the console asks Kommo every minute when there are no webhooks, with Kommo\'s reason', async () => {
    stubApi({});
    const reason = 'Kommo no permite webhooks en esta cuenta (requiere plan Advanced o Enterprise y un token de administrador). Se consulta Kommo cada minuto.';
    renderAt('/kommo', <KommoFreshness account={withFreshness({ keep_fresh: true, source: 'polling', hook_status: 'unavailable', last_event_at: null, error: reason })} />);
    expect(await screen.findByText('Sin webhooks: se consulta Kommo cada minuto')).toBeTruthy();
    expect(screen.getByText('Último evento: ninguno todavía')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe(reason);
  });

  it('switches it off with a PATCH of exactly that', async () => {
    const api = stubApi({
      'PATCH /api/kommo/accounts/3/keep-fresh': (_url, init) => ({ body: { id: 3, subdomain: 'miempresa', freshness: { keep_fresh: JSON.parse(String(init?.body)).keep_fresh, source: 'off', hook_status: 'off', last_event_at: null, error: null } } }),
    });
    const user = userEvent.setup();
    renderAt('/kommo', <KommoFreshness account={withFreshness({ keep_fresh: true, source: 'polling', hook_status: null, last_event_at: null, error: null })} />);
    await user.click(await screen.findByRole('switch', { name: 'Mantener contactos al día' }));
    await waitFor(() => expect(api.bodies('PATCH /api/kommo/accounts/3/keep-fresh')).toEqual([{ keep_fresh: false }]));
  });
});
