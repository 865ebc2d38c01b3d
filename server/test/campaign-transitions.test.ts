import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CAMPAIGN_STATUS_LABELS,
  CAMPAIGN_STATUSES,
  CAN_DELETE,
  CAN_EDIT,
  CAN_PAUSE,
  CAN_RETRY,
  CAN_START,
  type CampaignStatus,
} from '@masivo/contract/campaigns';
import { getCampaign } from '../src/services/campaigns/campaign-queries';
import { pauseFailedStart, refuse, type CampaignAction } from '../src/services/campaigns/campaign-transitions';
import { createTestApp, type TestApp } from './helpers/app';
import { seedCampaignWorld, type CampaignWorld } from './helpers/campaign-fixtures';

let t: TestApp;
let owner: { userId: number; headers: { authorization: string } };
let world: CampaignWorld;

beforeAll(async () => {
  t = await createTestApp();
  owner = await t.signUp();
  world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, {
    number: { phoneNumberId: '3001', wabaId: '4001', token: 'tok' },
    contacts: 3,
  });
});
afterAll(() => t.close());

const api = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  t.app.inject({ method, url: `/api/campaigns${url}`, headers: owner.headers, payload });

/** A campaign of the owner put straight into `status`, as if it had got there by itself. */
async function campaignIn(status: CampaignStatus): Promise<number> {
  const created = await api('POST', '', {
    name: `En estado ${status}`,
    kommo_account_id: world.kommoAccountId,
    whatsapp_account_id: world.whatsappAccountId,
    template_id: world.templateId,
  });
  const { id } = created.json() as { id: number };
  await t.ctx.db.execute(sql`update campaigns set status = ${status} where id = ${id}`);
  return id;
}

const ACTIONS: Array<{ action: CampaignAction; allowed: readonly CampaignStatus[]; run: (id: number) => ReturnType<typeof api> }> = [
  { action: 'start', allowed: CAN_START, run: (id) => api('POST', `/${id}/start`) },
  { action: 'pause', allowed: CAN_PAUSE, run: (id) => api('POST', `/${id}/pause`) },
  { action: 'edit', allowed: CAN_EDIT, run: (id) => api('PUT', `/${id}`, { name: 'Nuevo nombre' }) },
  { action: 'retry', allowed: CAN_RETRY, run: (id) => api('POST', `/${id}/retry-failed`) },
  { action: 'delete', allowed: CAN_DELETE, run: (id) => api('DELETE', `/${id}`) },
];

describe('one allowed-from table for every campaign action', () => {
  it('the server allows each action from exactly the statuses the contract lists, and refuses the rest with its label', async () => {
    const refusals: string[] = [];
    for (const { action, allowed, run } of ACTIONS) {
      for (const status of CAMPAIGN_STATUSES) {
        const id = await campaignIn(status);
        const res = await run(id);
        const answer = { status: res.statusCode, error: (res.json() as { error?: string }).error };
        const refusal = refuse(action, status).message;
        if (allowed.includes(status)) {
          // Allowed: whatever else may stop it, never the status refusal.
          expect(answer.error, `${action} from ${status}`).not.toBe(refusal);
        } else {
          expect(answer, `${action} from ${status}`).toEqual({ status: 409, error: refusal });
          refusals.push(refusal);
        }
      }
    }
    // The Spanish texts the routes and screens have always shown.
    expect(refusals).toContain('No se puede iniciar una campaña en estado Enviando');
    expect(refusals).toContain('No se puede pausar una campaña en estado Cancelada');
    expect(refusals).toContain('No se puede editar una campaña en estado Completada');
    expect(refusals).toContain('No se pueden reintentar envíos de una campaña en estado Borrador');
    expect(refusals).toContain('No se puede eliminar una campaña en estado Programada');
  });

  it('builds every refusal from the contract labels', () => {
    for (const status of CAMPAIGN_STATUSES) {
      expect(refuse('pause', status).message).toBe(`No se puede pausar una campaña en estado ${CAMPAIGN_STATUS_LABELS[status]}`);
    }
  });
});

describe('scheduled start that cannot happen', () => {
  it('pauses only a campaign still scheduled, and says whether it did', async () => {
    const scheduled = await campaignIn('scheduled');
    expect(await pauseFailedStart(t.ctx.db, scheduled, 'Motivo')).toBe(true);
    expect(await getCampaign(t.ctx.db, owner.userId, scheduled)).toMatchObject({ status: 'paused', pause_reason: 'Motivo' });

    // Another worker started it first: left as it is.
    const started = await campaignIn('sending');
    expect(await pauseFailedStart(t.ctx.db, started, 'Motivo')).toBe(false);
    expect(await getCampaign(t.ctx.db, owner.userId, started)).toMatchObject({ status: 'sending', pause_reason: null });
  });
});

describe('one home for campaign status writes', () => {
  const SRC = join(__dirname, '../src');
  const HOME = 'services/campaigns/campaign-transitions.ts';
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
    });

  it('no file but campaign-transitions.ts changes a campaign status or deletes a campaign', () => {
    const offenders: string[] = [];
    for (const path of files(SRC)) {
      const rel = relative(SRC, path).replaceAll('\\', '/');
      if (rel === HOME) continue;
      const text = readFileSync(path, 'utf8');
      // Raw SQL: an `update campaigns … set … status =` within one template literal.
      const raw = /update\s+campaigns\b[^`]*?\bset\b[^`]*?(?<![.\w])status\s*=/i.test(text);
      // Drizzle: update(campaigns) … .set({ … status … }), or delete(campaigns).
      const built = /\.update\(campaigns\)[\s\S]{0,80}?\.set\(/.test(text) || /\.delete\(campaigns\)/.test(text);
      if (raw || built) offenders.push(rel);
    }
    expect(offenders).toEqual([]);
  });
});
