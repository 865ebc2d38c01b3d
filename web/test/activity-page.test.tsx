import type { ActivityEntryView } from '@masivo/contract/activity';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ActivityPage } from '../src/features/activity/components/activity-page';
import { renderAt, stubApi } from './utils';

const entry = (over: Partial<ActivityEntryView>): ActivityEntryView => ({
  id: '1',
  at: '2026-03-01T10:00:00.000Z',
  actor_user_id: 7,
  actor_name: 'Marta Gestora',
  actor_role: 'campaign_manager',
  action: 'campaign.pause',
  target_type: 'campaign',
  target_id: '12',
  target_name: 'Promo otoño',
  changes: { before: { status: 'sending' }, after: { status: 'paused' } },
  detail: null,
  ip: '10.0.0.1',
  user_agent: 'Firefox',
  outcome: 'done',
  reason: null,
  ...over,
});

/** «Registro de actividad»: entries in Spanish, refusals in red with the reason, filters in the query, the CSV. */
describe('ActivityPage', () => {
  it('shows who, the role, the action, the target and the outcome; filters and exports', async () => {
    const api = stubApi({
      'GET /api/activity': () => ({
        body: {
          items: [
            entry({}),
            entry({ id: '2', actor_name: 'Luis Lector', actor_role: 'viewer', action: 'contacts.export', outcome: 'denied', reason: 'Rol sin permiso (contacts.export)', changes: null, target_type: null, target_name: null }),
            entry({ id: '3', actor_user_id: null, actor_name: 'sistema', actor_role: null, action: 'campaign.completed' }),
          ],
          next_cursor: null,
        },
      }),
      'GET /api/organization/members': () => ({
        body: [{ user_id: 7, email: 'm@example.com', first_name: 'Marta', last_name: 'Gestora', role: 'campaign_manager', scope: { whatsapp_account_ids: [], kommo_account_ids: [] }, joined_at: '2026-01-01T00:00:00.000Z' }],
      }),
      'GET /api/activity.csv': () => ({ body: '' }),
    });
    renderAt('/activity', <ActivityPage />);
    expect(await screen.findAllByTestId('activity-entry')).toHaveLength(3);
    expect(screen.getByText('Pausó la campaña', { selector: 'td' })).toBeTruthy();
    expect(screen.getByText('Gestor de campañas', { selector: 'span' })).toBeTruthy();
    expect(screen.getAllByText('Promo otoño', { selector: 'span' })).toHaveLength(2);
    expect(screen.getByText('Campaña completada', { selector: 'td' })).toBeTruthy();
    const denied = screen.getByTestId('activity-denied');
    expect(denied.textContent).toContain('Denegado');
    expect(denied.textContent).toContain('Rol sin permiso');
    expect(denied.className).toContain('text-red');

    fireEvent.change(screen.getByLabelText('Acción'), { target: { value: 'campaign.pause' } });
    await waitFor(() => expect(api.requests.some((r) => r.key === 'GET /api/activity' && r.url.searchParams.get('action') === 'campaign.pause')).toBe(true));

    fireEvent.click(screen.getByRole('button', { name: /Exportar CSV/ }));
    await waitFor(() => expect(api.calls()).toContain('GET /api/activity.csv'));
    const csv = api.requests.find((r) => r.key === 'GET /api/activity.csv')!;
    expect(csv.url.searchParams.get('action')).toBe('campaign.pause');
  });
});
