import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { CampaignWriteback } from '@/features/campaigns/components/campaign-writeback';
import { KommoWritebackSettings } from '@/features/kommo-accounts/components/kommo-writeback-settings';
import { writebackPollInterval } from '@/api/kommo-writeback';
import { campaign, renderAt, stubApi, type ApiStub } from './utils';

const account = { id: 3, subdomain: 'miempresa' } as KommoAccount;
const PIPELINES = [
  { id: 11, name: 'Embudo de ventas', is_main: true, statuses: [{ id: 101, name: 'Contacto inicial' }, { id: 102, name: 'Respondió campaña' }] },
  { id: 12, name: 'Postventa', is_main: false, statuses: [{ id: 201, name: 'Seguimiento' }] },
];
const OFF = { enabled: false, notes: true, opt_out_tag: null, reply_tag: null, pipeline_id: null, status_id: null, enabled_at: null };

describe('"Escritura en Kommo" settings on a Kommo account', () => {
  let api: ApiStub;
  beforeEach(() => {
    api = stubApi({
      'GET /api/kommo/accounts/3/writeback': () => ({ body: OFF }),
      'GET /api/kommo/accounts/3/pipelines': () => ({ body: PIPELINES }),
      'PUT /api/kommo/accounts/3/writeback': (_url, init) => ({ body: { ...JSON.parse(String(init?.body)), enabled_at: '2026-11-24T10:00:00Z' } }),
    });
  });

  it('switches write-back on with tags and a stage from Kommo, and sends exactly that', async () => {
    const user = userEvent.setup();
    renderAt('/kommo', <KommoWritebackSettings account={account} />);
    const summary = await screen.findByText('Escritura en Kommo: desactivada');
    await user.click(summary);
    await user.click(screen.getByLabelText('Escribir los resultados de cada campaña en Kommo'));
    await user.type(screen.getByLabelText('Etiqueta para bajas'), 'Baja WhatsApp');
    await user.type(screen.getByLabelText('Etiqueta para respuestas'), 'Respondió');
    const pipeline = screen.getByLabelText('Al responder, mover el lead abierto al embudo');
    await screen.findByRole('option', { name: 'Embudo de ventas' });
    await user.selectOptions(pipeline, '11');
    // A pipeline without a stage is refused before anything is sent.
    expect(screen.getByText('Elige el embudo y la etapa, o ninguno de los dos')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Guardar escritura en Kommo' }) as HTMLButtonElement).disabled).toBe(true);
    const stage = screen.getByLabelText('Etapa');
    expect(within(stage).queryByRole('option', { name: 'Seguimiento' })).toBeNull();
    await user.selectOptions(stage, '102');
    await user.click(screen.getByRole('button', { name: 'Guardar escritura en Kommo' }));
    await waitFor(() => expect(api.bodies('PUT /api/kommo/accounts/3/writeback')).toHaveLength(1));
    expect(api.bodies('PUT /api/kommo/accounts/3/writeback')[0]).toEqual({
      enabled: true,
      notes: true,
      opt_out_tag: 'Baja WhatsApp',
      reply_tag: 'Respondió',
      pipeline_id: 11,
      status_id: 102,
    });
    expect(await screen.findByText('Escritura en Kommo: activada')).toBeTruthy();
  });

  it('refuses a tag with a comma in Spanish', async () => {
    const user = userEvent.setup();
    renderAt('/kommo', <KommoWritebackSettings account={account} />);
    await user.click(await screen.findByText('Escritura en Kommo: desactivada'));
    await user.type(screen.getByLabelText('Etiqueta para bajas'), 'a,b');
    expect(screen.getByText('La etiqueta de bajas no puede contener comas ni punto y coma')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Guardar escritura en Kommo' }));
    expect(api.bodies('PUT /api/kommo/accounts/3/writeback')).toHaveLength(0);
  });

  it('says why the pipelines could not be loaded', async () => {
    api.routes['GET /api/kommo/accounts/3/pipelines'] = () => ({ status: 400, body: { error: 'Kommo rechazó el token de acceso (401). Verifica el token de la cuenta.' } });
    const user = userEvent.setup();
    renderAt('/kommo', <KommoWritebackSettings account={account} />);
    await user.click(await screen.findByText('Escritura en Kommo: desactivada'));
    expect(await screen.findByText(/Kommo rechazó el token de acceso \(401\)/)).toBeTruthy();
  });
});

describe('the progress line on the campaign screen', () => {
  const progress = (over: object) => ({ state: 'running', total: 5000, done: 1200, failed: 0, late_done: 0, late_pending: 0, last_error: null, retry_at: null, failures: [], ...over });

  it('shows "Kommo: 1.200 / 5.000 contactos actualizados" and the failures with their reason', async () => {
    stubApi({
      'GET /api/campaigns/9/kommo-writeback': () => ({
        body: progress({ failed: 3, failures: [{ reason: 'Kommo rechazó la nota: Entity not found', count: 3 }] }),
      }),
    });
    renderAt('/campaigns/9', <CampaignWriteback campaign={campaign({ id: 9, status: 'completed' })} />);
    expect(await screen.findByText('Kommo: 1.200 / 5.000 contactos actualizados')).toBeTruthy();
    expect(screen.getByText('3 contactos no se pudieron actualizar:')).toBeTruthy();
    expect(screen.getByText('Kommo rechazó la nota: Entity not found (3)')).toBeTruthy();
    expect(screen.getByRole('progressbar', { name: 'Resultados escritos en Kommo' }).getAttribute('aria-valuenow')).toBe('24');
  });

  it('shows Kommo’s refusal while it is retried, and that the campaign is not affected', async () => {
    stubApi({
      'GET /api/campaigns/9/kommo-writeback': () => ({
        body: progress({ state: 'retrying', last_error: 'Kommo rechazó el token de acceso (401). Verifica el token de la cuenta.', retry_at: '2026-11-24T10:05:00Z' }),
      }),
    });
    renderAt('/campaigns/9', <CampaignWriteback campaign={campaign({ id: 9, status: 'completed' })} />);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/Kommo falló: Kommo rechazó el token de acceso \(401\)/);
    expect(alert.textContent).toMatch(/La campaña no se ve afectada/);
  });

  it('says when write-back was switched off with contacts still to write', async () => {
    stubApi({ 'GET /api/campaigns/9/kommo-writeback': () => ({ body: progress({ state: 'paused' }) }) });
    renderAt('/campaigns/9', <CampaignWriteback campaign={campaign({ id: 9, status: 'completed' })} />);
    expect(await screen.findByText(/La escritura en Kommo está desactivada en la cuenta/)).toBeTruthy();
    expect(screen.getByText('Kommo: 1.200 / 5.000 contactos actualizados')).toBeTruthy();
  });

  it('shows nothing when the account does not write back', async () => {
    const api = stubApi({ 'GET /api/campaigns/9/kommo-writeback': () => ({ body: progress({ state: 'off', total: 0, done: 0 }) }) });
    renderAt('/campaigns/9', <CampaignWriteback campaign={campaign({ id: 9, status: 'completed' })} />);
    await waitFor(() => expect(api.calls()).toContain('GET /api/campaigns/9/kommo-writeback'));
    expect(screen.queryByTestId('campaign-writeback')).toBeNull();
  });

  it('polls while it runs and stops when done', () => {
    expect(writebackPollInterval(progress({}) as never, 'completed')).toBe(3000);
    expect(writebackPollInterval(progress({ state: 'done' }) as never, 'completed')).toBe(false);
    expect(writebackPollInterval(progress({ state: 'waiting' }) as never, 'sending')).toBe(false);
    expect(writebackPollInterval(progress({ state: 'waiting' }) as never, 'completed')).toBe(3000);
  });
});
