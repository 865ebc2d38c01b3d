import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClaimedRecipient } from '../src/engine/campaigns/claim';
import { resolveEngineOptions } from '../src/engine/campaigns/options';
import type { ResultWriter } from '../src/engine/campaigns/result-writer';
import { AccountSender, BLACKLISTED, type SenderStore } from '../src/engine/campaigns/sender';
import type { ActiveCampaign } from '../src/engine/campaigns/sender-campaigns';
import type { SendOutcome, TemplateSend } from '../src/integrations/whatsapp/messenger';
import { createMetrics } from '../src/lib/metrics';

/**
 * The sender runs on nothing but what it is handed: a store, a messenger, a writer. These
 * tests give it in-memory ones (no database, no Graph API) and watch what it does with them.
 */

const ACCOUNT = 7;
const campaign: ActiveCampaign = {
  id: 11,
  userId: 1,
  kommoAccountId: 2,
  templateId: 3,
  templateName: 'promo',
  language: 'es',
  template: { components: [{ type: 'BODY', text: 'Hola' }] },
  mappings: [],
  headerMediaId: null,
  loadedAt: performance.now(),
};
const recipient = (id: number, phone: string): ClaimedRecipient => ({
  id,
  campaignId: campaign.id,
  phone,
  phoneKey: phone.slice(1),
  attempts: 1,
  contact: { name: 'Ana', first_name: 'Ana', last_name: '', phone, email: null, custom_fields: {} },
});

function harness(outcome: (send: TemplateSend) => SendOutcome) {
  const claims = [[recipient(101, '+5491100000001'), recipient(102, '+5491100000002'), recipient(103, '+5491100000003')]];
  const paused: Array<{ target: unknown; reason: string }> = [];
  const store: SenderStore = {
    accountId: ACCOUNT,
    loadAccount: async () => ({
      id: ACCOUNT,
      userId: 1,
      phoneNumberId: 'pn-7',
      businessAccountId: 'waba-7',
      accessToken: 'tok',
      ratePerSecond: 50,
      isActive: true,
      qualityRating: 'GREEN',
    }),
    tokenUnreadable: async () => false,
    activeCampaigns: async () => ({ active: paused.length ? new Map() : new Map([[campaign.id, campaign]]), refused: [] }),
    claim: async () => claims.shift() ?? [],
    nextDueAt: async () => null,
    excluded: async (_c, keys) => ({ blacklisted: new Set(keys.filter((k) => k.endsWith('2'))), capped: new Set<string>() }),
    templateRefused: async (templateId, code) => {
      paused.push({ target: { templateId }, reason: `plantilla ${code}` });
      return [campaign.id];
    },
    pause: async (target, reason) => {
      paused.push({ target, reason });
      return [campaign.id];
    },
    signCallback: ({ campaignId, recipientId }) => `firmado:${campaignId}:${recipientId}`,
    signButton: ({ campaignId, index }) => `boton:${campaignId}:${index}`,
  };
  const sent: TemplateSend[] = [];
  const settled: unknown[] = [];
  const accepted: number[] = [];
  const writer = {
    settle: (s: unknown) => settled.push(s),
    accept: (_account: number, recipientId: number) => accepted.push(recipientId),
    dispatched: () => undefined,
    flush: async () => undefined,
  } as unknown as ResultWriter;
  const messenger = (connections: number) => {
    expect(connections).toBeGreaterThan(0);
    return {
      send: async (message: TemplateSend, onWritten?: () => void) => {
        onWritten?.();
        sent.push(message);
        return outcome(message);
      },
      close: async () => undefined,
    };
  };
  const opts = resolveEngineOptions({ refreshMs: 50 });
  const sender = new AccountSender(store, messenger, writer, opts, () => undefined, createMetrics(async () => ({}) as never));
  return { sender, sent, settled, accepted, paused };
}

async function until(check: () => boolean, ms = 3_000) {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the sender works through the collaborators it is given', () => {
  it('sends claimed recipients with signed callback data and skips blacklisted ones', async () => {
    const h = harness(() => ({ kind: 'ok', wamid: 'wamid.x' }));
    await h.sender.start(performance.now() + 60_000);
    await until(() => h.accepted.length === 2);
    await h.sender.stop();

    expect(h.sent.map((m) => [m.to, m.bizOpaque, m.phoneNumberId, m.templateName])).toEqual([
      ['+5491100000001', 'firmado:11:101', 'pn-7', 'promo'],
      ['+5491100000003', 'firmado:11:103', 'pn-7', 'promo'],
    ]);
    expect(h.settled).toContainEqual({ recipientId: 102, kind: 'skipped', message: BLACKLISTED });
    expect(h.accepted).toEqual([101, 103]);
  });

  it('pauses through the store when Meta refuses the whole number', async () => {
    const h = harness(() => ({ kind: 'systemic', code: 190, message: 'token', reason: 'Token de WhatsApp inválido', scope: 'account' }));
    await h.sender.start(performance.now() + 60_000);
    await until(() => h.paused.length > 0);
    await h.sender.stop();

    expect(h.paused[0]).toEqual({ target: { whatsappAccountId: ACCOUNT }, reason: 'Token de WhatsApp inválido (código 190)' });
    expect(h.settled).toContainEqual(expect.objectContaining({ recipientId: 101, kind: 'requeue', code: 190 }));
  });

  it('reaches no database, context or service folder on its own', () => {
    const source = readFileSync(join(__dirname, '../src/engine/campaigns/sender.ts'), 'utf8');
    const imports = [...source.matchAll(/^import\s+(type\s+)?[^;]*?from '([^']+)';/gms)].map((m) => ({ typeOnly: !!m[1], from: m[2] }));
    const values = imports.filter((i) => !i.typeOnly).map((i) => i.from);
    // No database or context, and no messenger built here: it comes in through the constructor.
    expect(values.filter((from) => /drizzle|\/context$|\/db\/|\/messenger$/.test(from))).toEqual([]);
    // Rendering is pure; every other service is reached through the store.
    expect(values.filter((from) => from.includes('/services/'))).toEqual(['../../services/variables/render']);
  });
});
