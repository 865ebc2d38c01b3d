import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CampaignLimitNote, campaignLimitNote } from '@/components/campaign-limit-note';
import { dailyLimitText } from '@/features/whatsapp-accounts/components/daily-limit';
import { RECIPIENT_STATUS_LABELS } from '@/features/campaigns/components/recipient-status';
import { campaignFormSchema } from '@/features/campaigns/components/campaign-form';
import { campaign } from './utils';

describe("Meta's limits on the screens", () => {
  it('the account card shows the portfolio limit and how much of it the last 24 h used', () => {
    expect(dailyLimitText({ daily_limit: 2000, daily_limit_used: 1234 })).toBe('1.234 / 2.000 destinatarios únicos (24 h)');
    expect(dailyLimitText({ daily_limit: -1, daily_limit_used: 5 })).toBe('Ilimitado · 5 destinatarios únicos (24 h)');
    expect(dailyLimitText({ daily_limit: null, daily_limit_used: 0 })).toBe('Sin datos: usa «Probar»');
  });

  it('a sending campaign held by the daily limit says so, with the time it resumes', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    const waiting = campaign({ status: 'sending', limit_wait_until: '2026-11-25T09:30:00Z' });
    expect(campaignLimitNote(waiting, now)).toMatch(/^En espera del límite diario de Meta · se reanuda el /);
    expect(campaignLimitNote({ ...waiting, limit_wait_until: '2026-11-24T09:00:00Z' }, now)).toBeNull();
    expect(campaignLimitNote({ ...waiting, status: 'paused' }, now)).toBeNull();
  });

  it('a completed campaign with deferred recipients shows how many are pending', () => {
    render(<CampaignLimitNote campaign={campaign({ status: 'completed', deferred_count: 3 })} />);
    expect(screen.getByText('Completada · 3 diferidos pendientes')).toBeTruthy();
    expect(campaignLimitNote(campaign({ status: 'completed', deferred_count: 1 }))).toBe('Completada · 1 diferido pendiente');
    expect(campaignLimitNote(campaign({ status: 'completed', deferred_count: 0 }))).toBeNull();
    expect(RECIPIENT_STATUS_LABELS.deferred).toBe('Diferido: límite de marketing de Meta');
  });

  it('the form checks the deferral window in Spanish', () => {
    const base = { name: 'x', description: '', kommo_account_id: 1, whatsapp_account_id: 1, template_id: 1, scheduled_local: '' };
    expect(campaignFormSchema.safeParse({ ...base, deferred_max_attempts: '2', deferred_window_hours: '72' }).success).toBe(true);
    const bad = campaignFormSchema.safeParse({ ...base, deferred_max_attempts: '9', deferred_window_hours: '10' });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues.map((i) => i.message)).toEqual([
      'Los reintentos por límite de marketing deben ser un número entre 0 y 5',
      'La ventana de reintentos debe ser de 24 a 168 horas',
    ]);
  });
});
