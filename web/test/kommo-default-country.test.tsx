import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { KommoAccount, PhoneRecheck } from '@masivo/contract/kommo-accounts';
import type { Preflight } from '@masivo/contract/preflight';
import { KommoAccountCard } from '@/features/kommo-accounts/components/kommo-account-card';
import { CampaignPreflight } from '@/features/campaigns/components/campaign-preflight';
import { PreflightPanel } from '@/features/campaigns/components/preflight-panel';
import { renderAt, stubApi } from './utils';

const account = (over: Partial<KommoAccount> = {}): KommoAccount => ({
  id: 3,
  subdomain: 'miempresa',
  phone_field_id: 10,
  country: 'AR',
  default_country: null,
  phone_recheck: null,
  time_zone_field: null,
  time_zone: 'America/Argentina/Buenos_Aires',
  sync_status: 'synced',
  sync_total_contacts: 3000,
  sync_progress_contacts: 3000,
  last_sync_at: '2026-11-25T10:00:00.000Z',
  sync_error_message: null,
  created_at: '2026-11-01T10:00:00.000Z',
  updated_at: '2026-11-25T10:00:00.000Z',
  ...over,
});

const recheck = (over: Partial<PhoneRecheck> = {}): PhoneRecheck => ({
  status: 'done',
  country: 'CO',
  processed: 3000,
  total: 3000,
  became_valid: 512,
  became_invalid: 3,
  changed: 0,
  started_at: '2026-11-25T10:00:00.000Z',
  finished_at: '2026-11-25T10:01:00.000Z',
  ...over,
});

describe('"País por defecto" on the Kommo account card', () => {
  it('shows Kommo’s country, offers every country by its Spanish name, and saves the one picked', async () => {
    const api = stubApi({
      'PUT /api/kommo/accounts/3': () => ({ body: account({ default_country: 'CO', sync_status: 'syncing', phone_recheck: recheck({ status: 'running', processed: 0, finished_at: null }) }) }),
      'GET /api/kommo/accounts': () => ({ body: [] }),
      'GET /api/kommo/accounts/3/sync-status': () => ({ body: { ...account(), phone_recheck: recheck() } }),
    });
    const user = userEvent.setup();
    renderAt('/accounts', <KommoAccountCard account={account()} />);
    await user.click(screen.getByText('País de los teléfonos: Argentina (de Kommo)'));
    const select = screen.getByLabelText('País por defecto') as HTMLSelectElement;
    expect(select.value).toBe('');
    // The select's own options (a role query over 243 options is slow in jsdom).
    const names = Array.from(select.options).map((o) => o.textContent);
    expect(names[0]).toBe('Según la cuenta Kommo (Argentina)');
    expect(names).toContain('México');
    expect(names).toHaveLength(243);
    // Spanish alphabetical order: Colombia before Costa Rica, España among the E.
    expect(names.indexOf('Colombia')).toBeLessThan(names.indexOf('Costa Rica'));
    expect(names.indexOf('Ecuador')).toBeLessThan(names.indexOf('España'));
    const save = screen.getByRole('button', { name: 'Guardar país' }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    fireEvent.change(select, { target: { value: 'CO' } });
    await user.click(save);
    await waitFor(() => expect(api.bodies('PUT /api/kommo/accounts/3')).toEqual([{ default_country: 'CO' }]));
    expect(await screen.findByText('País guardado: revisando los teléfonos')).toBeTruthy();
    // A whole card with 243 options: slower than the default 5 s on a busy machine.
  }, 20_000);

  it('shows a running re-check with its progress instead of "Sincronizando", and locks the setting', async () => {
    const running = account({ default_country: 'CO', sync_status: 'syncing', phone_recheck: recheck({ status: 'running', processed: 1000, finished_at: null }) });
    stubApi({
      'GET /api/kommo/accounts/3/sync-status': () => ({ body: running }),
    });
    renderAt('/accounts', <KommoAccountCard account={running} />);
    expect(screen.getByText('Revisando teléfonos')).toBeTruthy();
    expect(screen.getByText('Revisando teléfonos con Colombia: 1000 de 3000')).toBeTruthy();
    expect(screen.getByRole('progressbar', { name: 'Revisión de teléfonos de miempresa' }).getAttribute('aria-valuenow')).toBe('33');
    expect(screen.getByRole('button', { name: /Revisando teléfonos\.\.\./ })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Cancelar revisión' })).toBeTruthy();
    expect(screen.getByText('País de los teléfonos: Colombia')).toBeTruthy();
    expect(screen.getByLabelText('País por defecto')).toHaveProperty('disabled', true);
    expect(screen.getByText('Espera a que termine la revisión de los teléfonos para cambiarlo.')).toBeTruthy();
  });

  it('tells the result of the last re-check, and offers to finish an interrupted one', async () => {
    stubApi({});
    const { unmount } = renderAt('/accounts', <KommoAccountCard account={account({ default_country: 'CO', phone_recheck: recheck() })} />);
    expect(screen.getByTestId('phone-recheck').textContent).toMatch(/^Teléfonos revisados con Colombia el .+: 512 ahora válidos, 3 ya no válidos, 0 cambiados\.$/);
    unmount();
    renderAt('/accounts', <KommoAccountCard account={account({ default_country: 'CO', phone_recheck: recheck({ status: 'interrupted', processed: 1200 }) })} />);
    expect(screen.getByTestId('phone-recheck').textContent).toContain('La revisión de teléfonos con Colombia se interrumpió (1200 de 3000');
    await userEvent.click(screen.getByText('País de los teléfonos: Colombia'));
    expect(screen.getByRole('button', { name: 'Terminar la revisión' })).toHaveProperty('disabled', false);
  });
});

const preflight: Preflight = {
  matched: 3000,
  attempted: 2059,
  excluded: [
    { reason: 'invalid_phone', label: 'sin teléfono válido', count: 941 },
    { reason: 'duplicate', label: 'duplicado', count: 0 },
    { reason: 'blacklisted', label: 'en lista negra', count: 1 },
    { reason: 'frequency_cap', label: 'tope de frecuencia', count: 0 },
    { reason: 'us_marketing', label: 'EE.UU. (marketing)', count: 0 },
    { reason: 'template_unfit', label: 'plantilla no apta', count: 0 },
  ],
  template_problem: null,
  budget: { daily_limit: null, used: 0, left: null, waves: 1 },
  eta: { rate_per_second: 80, finish_at: '2026-11-25T10:00:00.000Z', sending_seconds: 26, waiting_seconds: 0 },
  cost: { currency: 'USD', total: 0, priced: 0, unpriced: 2059, by_country: [] },
  frequency_cap: null,
};

describe('the pre-flight’s exclusion lists', () => {
  it('makes each reason a button that downloads its contacts', async () => {
    const names: string[] = [];
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:excluidos'), revokeObjectURL: vi.fn() }));
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      names.push(this.download);
    });
    const api = stubApi({
      'GET /api/campaigns/7/preflight': () => ({ body: preflight }),
      'GET /api/campaigns/7/preflight/excluded': () => ({ body: 'csv' }),
    });
    renderAt('/campaigns/7', <CampaignPreflight id={7} />);
    const invalid = await screen.findByRole('button', { name: 'Descargar la lista: Sin teléfono válido (941 contactos)' });
    expect(screen.getByRole('button', { name: 'Descargar la lista: En lista negra (1 contacto)' })).toBeTruthy();
    await userEvent.click(invalid);
    await waitFor(() => expect(names).toHaveLength(1));
    const req = api.requests.find((r) => r.key === 'GET /api/campaigns/7/preflight/excluded')!;
    expect(Object.fromEntries(req.url.searchParams)).toEqual({ reason: 'invalid_phone', format: 'csv' });
    expect(names).toEqual(['excluidos-invalid_phone.csv']);
  });

  it('says so when a list cannot be downloaded, and stays plain text without a download', async () => {
    stubApi({});
    const failing = vi.fn(async () => {
      throw new Error('no');
    });
    const { unmount } = renderAt('/', <PreflightPanel data={preflight} isLoading={false} onDownloadExcluded={failing} />);
    await userEvent.click(screen.getByRole('button', { name: /Sin teléfono válido/ }));
    expect(failing).toHaveBeenCalledWith('invalid_phone');
    expect(await screen.findByText('Error al descargar la lista')).toBeTruthy();
    unmount();
    renderAt('/', <PreflightPanel data={preflight} isLoading={false} />);
    expect(screen.queryByRole('button', { name: /Sin teléfono válido/ })).toBeNull();
    expect(screen.getByTestId('preflight-excluded').textContent).toContain('Sin teléfono válido941');
  });
});
