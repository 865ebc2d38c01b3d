import type { BlacklistEntry } from '@masivo/contract/blacklist';
import { ROLE_PERMISSIONS, type Role } from '@masivo/contract/organizations';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BlacklistTable } from '../src/features/blacklist/components/blacklist-table';
import { ExportResultsButton } from '../src/features/campaigns/components/export-results-button';
import { OWNER_ME, renderAt, stubApi } from './utils';

/** Screens hide what the member's role cannot do, once GET /api/me has answered. */
const as = (role: Role) => stubApi({ 'GET /api/me': () => ({ body: { ...OWNER_ME, role, permissions: [...ROLE_PERMISSIONS[role]] } }) });

const entries: BlacklistEntry[] = [{ id: 1, phone: '+54 9 11 •••• 5678', reason: 'baja', created_at: '2026-11-20T10:00:00.000Z', origin: 'manual', bsuid: null }];

describe('what a role may not do is not offered', () => {
  it('a Lector gets no «Remover» on the blacklist and no «Exportar resultados»; an owner gets both', async () => {
    const api = as('viewer');
    renderAt('/blacklist', <><BlacklistTable accountId={1} entries={entries} /><ExportResultsButton campaignId={1} filter={{}} /></>, '/blacklist');
    await waitFor(() => expect(api.requests.some((r) => r.key === 'GET /api/me')).toBe(true));
    await waitFor(() => expect(screen.queryByRole('button', { name: /Remover/ })).toBeNull());
    expect(screen.queryByRole('button', { name: /Exportar resultados/ })).toBeNull();
  });

  it('an Editor may add to the blacklist but not remove', async () => {
    as('editor');
    renderAt('/blacklist', <BlacklistTable accountId={1} entries={entries} />, '/blacklist');
    await waitFor(() => expect(screen.queryByRole('button', { name: /Remover/ })).toBeNull());
  });

  it('an owner sees the actions', async () => {
    as('owner');
    renderAt('/blacklist', <><BlacklistTable accountId={1} entries={entries} /><ExportResultsButton campaignId={1} filter={{}} /></>, '/blacklist');
    expect(await screen.findByRole('button', { name: /Remover/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: /Exportar resultados/ })).toBeTruthy();
  });
});
