import type { BlacklistEntry } from '@masivo/contract/blacklist';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BlacklistTable } from '../src/features/blacklist/components/blacklist-table';
import { renderAt, stubApi } from './utils';

/** Opt-out origins: the blacklist shows where each entry came from, and a username user's BSUID. */
describe('BlacklistTable origins', () => {
  it('labels manual, keyword, button and marketing-stop entries in Spanish', () => {
    stubApi();
    const at = '2026-11-20T10:00:00.000Z';
    const entries: BlacklistEntry[] = [
      { id: 1, phone: '+5491112345678', reason: 'Pidió por teléfono', created_at: at, origin: 'manual', bsuid: null },
      { id: 2, phone: '+5491100000002', reason: 'Baja solicitada por WhatsApp ("BAJA")', created_at: at, origin: 'keyword', bsuid: null },
      { id: 3, phone: '+5491100000003', reason: 'Dejó de recibir marketing (WhatsApp)', created_at: at, origin: 'meta_marketing', bsuid: 'AR.77ab' },
      { id: 4, phone: 'US.13491208655302741918', reason: 'Baja solicitada por WhatsApp ("STOP")', created_at: at, origin: 'button', bsuid: 'US.13491208655302741918' },
      { id: 5, phone: '+5491100000005', reason: null, created_at: at },
    ];
    renderAt('/blacklist', <BlacklistTable accountId={1} entries={entries} />, '/blacklist');
    expect(screen.getByRole('columnheader', { name: 'Origen' })).toBeTruthy();
    expect(screen.getAllByText('Agregado a mano')).toHaveLength(2);
    expect(screen.getByText('Palabra de baja')).toBeTruthy();
    expect(screen.getByText('Dejó de recibir marketing (WhatsApp) · AR.77ab')).toBeTruthy();
    expect(screen.getByText('Botón «Baja»')).toBeTruthy();
  });
});
