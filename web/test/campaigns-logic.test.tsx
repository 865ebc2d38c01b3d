import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CampaignStatusBadge, campaignProgress, campaignStatusOf } from '../src/components/campaign-status';
import { campaignFormSchema, toCreatePayload } from '../src/features/campaigns/components/campaign-form';
import { CampaignProgress, PROGRESS_COLORS } from '../src/features/campaigns/components/campaign-progress';
import { isFutureLocalInput, localInputToIso } from '../src/features/campaigns/components/schedule';
import { templateOptionLabel } from '../src/features/campaigns/components/template-section';
import { campaignPollInterval } from '../src/features/campaigns/api/get-campaign';
import { dashboardStats, recentCampaigns } from '../src/features/dashboard/components/dashboard-stats';

describe('campaign status', () => {
  it('labels every status in Spanish and shows an unknown one as draft', () => {
    render(
      <>
        <CampaignStatusBadge status="sending" />
        <CampaignStatusBadge status="weird" />
      </>,
    );
    expect(screen.getByText('Enviando')).toBeTruthy();
    expect(screen.getByText('Borrador')).toBeTruthy();
    expect(campaignStatusOf(undefined)).toBe('draft');
  });

  it('counts progress as messages sent over recipients (spec), never failures', () => {
    expect(campaignProgress({ total_recipients: 0, messages_sent: 0 })).toBe(0);
    expect(campaignProgress({ total_recipients: 3, messages_sent: 2 })).toBe(66);
    expect(campaignProgress({ total_recipients: 1000, messages_sent: 999 })).toBe(99);
    expect(campaignProgress({ total_recipients: 10, messages_sent: 7, failed_count: 1, skipped_count: 1, unknown_count: 1 })).toBe(70);
    expect(campaignProgress({ total_recipients: 100, messages_sent: 90, failed_count: 10 })).toBe(90);
  });
});

describe('progress bar', () => {
  it('uses the spec colours and pulses "Enviando..." only while sending', () => {
    expect(PROGRESS_COLORS).toMatchObject({
      sending: 'bg-blue-600',
      completed: 'bg-green-600',
      paused: 'bg-yellow-500',
      cancelled: 'bg-red-600',
      draft: 'bg-gray-400',
      scheduled: 'bg-gray-400',
    });
    const counts = { total_recipients: 10, messages_sent: 4, failed_count: 0, skipped_count: 0, unknown_count: 0 };
    const { rerender, container } = render(<CampaignProgress campaign={{ ...counts, status: 'sending' }} />);
    expect(screen.getByText('Enviando...')).toBeTruthy();
    expect(container.querySelector('[role="progressbar"] > div')?.className).toContain('bg-blue-600');
    rerender(<CampaignProgress campaign={{ ...counts, status: 'paused' }} />);
    expect(screen.queryByText('Enviando...')).toBeNull();
    expect(container.querySelector('[role="progressbar"] > div')?.className).toContain('bg-yellow-500');
    rerender(<CampaignProgress campaign={{ ...counts, status: 'bogus' }} />);
    expect(container.querySelector('[role="progressbar"] > div')?.className).toContain('bg-gray-400');
  });

  it('says "En espera" instead of "Enviando..." while the campaign waits outside its sending hours', () => {
    const counts = { total_recipients: 10, messages_sent: 0, failed_count: 0, skipped_count: 0, unknown_count: 0, status: 'sending' };
    const { rerender } = render(<CampaignProgress campaign={{ ...counts, hours_wait_until: new Date(Date.now() + 3_600_000).toISOString() }} />);
    expect(screen.getByText('En espera: fuera del horario de envío')).toBeTruthy();
    expect(screen.queryByText('Enviando...')).toBeNull();
    // A wait already over (the sender has not cleared it yet) is sending again.
    rerender(<CampaignProgress campaign={{ ...counts, hours_wait_until: new Date(Date.now() - 1000).toISOString() }} />);
    expect(screen.getByText('Enviando...')).toBeTruthy();
    expect(screen.queryByText('En espera: fuera del horario de envío')).toBeNull();
  });
});

describe('scheduling', () => {
  it('turns the local picker value into an ISO timestamp with offset for the same instant', () => {
    const iso = localInputToIso('2031-03-04T05:06')!;
    expect(iso).toMatch(/^2031-03-04T05:06:00[+-]\d{2}:\d{2}$/);
    expect(Date.parse(iso)).toBe(new Date('2031-03-04T05:06').getTime());
    expect(localInputToIso('')).toBeNull();
    expect(localInputToIso('basura')).toBeNull();
  });

  it('accepts only future times', () => {
    expect(isFutureLocalInput('2999-01-01T00:00')).toBe(true);
    expect(isFutureLocalInput('2001-01-01T00:00')).toBe(false);
  });
});

describe('campaign form', () => {
  const values = {
    name: 'Promo',
    description: '',
    kommo_account_id: 1,
    whatsapp_account_id: 2,
    template_id: 3,
    deferred_max_attempts: 2,
    deferred_window_hours: 72,
    scheduled_local: '',
  };
  const filter = {
    searchQuery: '  ana ',
    tags: ['vip'],
    tagOperator: 'AND' as const,
    excludedTags: ['no_contactar'],
    customFieldFilters: {
      Ciudad: { mode: 'manual' as const, manualValue: 'Lima' },
      Vacio: { mode: 'manual' as const, manualValue: '  ' },
      Nada: { mode: 'none' as const },
      Lista: { mode: 'specific' as const, values: ['a'] },
    },
  };

  it('builds the spec payload: a draft omits scheduled_at, message_type is template, only active filters', () => {
    const payload = toCreatePayload(values, filter);
    expect(payload).toEqual({
      name: 'Promo',
      description: '',
      kommo_account_id: 1,
      whatsapp_account_id: 2,
      template_id: 3,
      deferred_max_attempts: 2,
      deferred_window_hours: 72,
      message_type: 'template',
      filters: {
        searchQuery: 'ana',
        tags: ['vip'],
        tagOperator: 'AND',
        excludedTags: ['no_contactar'],
        customFieldFilters: { Ciudad: { mode: 'manual', manualValue: 'Lima' }, Lista: { mode: 'specific', values: ['a'] } },
      },
    });
    expect('scheduled_at' in payload).toBe(false);
    const scheduled = toCreatePayload({ ...values, scheduled_local: '2031-03-04T05:06' }, filter);
    expect(scheduled.scheduled_at).toBe(localInputToIso('2031-03-04T05:06'));
  });

  it('requires name and accounts and refuses a past schedule, in Spanish', () => {
    const r = campaignFormSchema.safeParse({ name: ' ', description: '', kommo_account_id: '', whatsapp_account_id: '', template_id: '', scheduled_local: '2001-01-01T00:00' });
    expect(r.success).toBe(false);
    const messages = r.error!.issues.map((i) => i.message);
    expect(messages).toEqual(
      expect.arrayContaining(['El nombre es requerido', 'La cuenta Kommo es requerida', 'La cuenta de WhatsApp es requerida', 'La plantilla es requerida']),
    );
    expect(messages).toContain('La fecha de programación debe ser futura');
  });

  it('labels templates with name, language and category', () => {
    const t = { id: 1, name: 'promo', language: 'es', category: 'marketing', status: 'approved', components: [] };
    expect(templateOptionLabel(t)).toBe('promo (es) - marketing');
    expect(templateOptionLabel({ ...t, status: 'pending' })).toBe('promo (es) - marketing · no aprobada (pendiente)');
    expect(templateOptionLabel({ ...t, status: 'paused' })).toBe('promo (es) - marketing · no aprobada (pausada)');
    expect(templateOptionLabel(t, ['{{1}}', '{{2}} (encabezado)'])).toBe('promo (es) - marketing · variables sin configurar: {{1}}, {{2}} (encabezado)');
  });
});

describe('dashboard counts (spec §4)', () => {
  const c = (id: number, status: string, total: number, sent: number, created: string) => ({
    id,
    status: status as never,
    total_recipients: total,
    messages_sent: sent,
    created_at: created,
  });
  const campaigns = [
    c(1, 'sending', 100, 40, '2025-01-01T00:00:00Z'),
    c(2, 'sending', 50, 50, '2025-01-02T00:00:00Z'),
    c(3, 'scheduled', 10, 0, '2025-01-03T00:00:00Z'),
    c(4, 'completed', 10, 10, '2025-01-04T00:00:00Z'),
    c(5, 'paused', 500, 1, '2025-01-05T00:00:00Z'),
    c(6, 'draft', 5, 0, '2025-01-06T00:00:00Z'),
    c(7, 'completed', 5, 5, '2024-12-31T00:00:00Z'),
  ];

  it('adds up contacts, active, completed and pending messages', () => {
    expect(dashboardStats(campaigns, [{ sync_total_contacts: 1200 }, { sync_total_contacts: 34 }])).toEqual({
      totalContacts: 1234,
      activeCampaigns: 3,
      completedCampaigns: 2,
      pendingMessages: 60,
    });
  });

  it('lists the 5 newest by created_at', () => {
    expect(recentCampaigns(campaigns).map((x) => x.id)).toEqual([6, 5, 4, 3, 2]);
  });
});

describe('detail polling', () => {
  it('polls every 5 s while sending and for a while after completion, never otherwise', () => {
    const now = Date.parse('2025-01-01T12:00:00Z');
    expect(campaignPollInterval({ status: 'sending', completed_at: null }, now)).toBe(5000);
    expect(campaignPollInterval({ status: 'completed', completed_at: '2025-01-01T11:59:00Z' }, now)).toBe(5000);
    expect(campaignPollInterval({ status: 'completed', completed_at: '2025-01-01T11:00:00Z' }, now)).toBe(false);
    for (const status of ['draft', 'scheduled', 'paused', 'cancelled'] as const) {
      expect(campaignPollInterval({ status, completed_at: null }, now)).toBe(false);
    }
    expect(campaignPollInterval(undefined, now)).toBe(false);
  });
});
