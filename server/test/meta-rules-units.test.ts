import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { accountUpdateStop } from '../src/engine/campaigns/account-update';
import { readWebhook } from '../src/engine/campaigns/webhook-payload';
import { createWhatsAppMessenger } from '../src/integrations/whatsapp/messenger';
import { classifyGraphError } from '../src/integrations/whatsapp/send-errors';
import { isBsuid } from '../src/lib/bsuid';
import { normalizePhoneKey, phoneKey, toE164 } from '../src/lib/phone';
import { normaliseBlacklistPhone } from '../src/services/blacklist/blacklist-service';
import { isOptIn, isOptOut, personOf } from '../src/services/blacklist/opt-out';
import * as meta from './fixtures/meta-webhooks';

/** A paused campaign's reason for an account_update (a number's with `number`); null when nothing stops. */
function pauseReason(v: Record<string, unknown>, number = false): string | null {
  const stop = accountUpdateStop(v);
  return stop && (number ? stop.numberReason : stop.reason);
}

const ROUTE = { wabaId: '102290129340398', phoneNumberId: '106540352242922' };

describe('keyword opt-outs', () => {
  it('accept the whole message in any case, without accents, with trailing punctuation', () => {
    for (const w of ['BAJA', 'baja', '¡Baja!', 'Stop.', 'alto', 'CANCELAR', 'cancelár', 'No más', 'NO   MAS!!', 'no mas', 'Sair', 'PARAR', 'parar.', 'Unsubscribe', ' stop \n']) {
      expect(isOptOut(w), w).toBe(true);
    }
  });
  it('refuse a word inside a sentence, and never take ALTA for an opt-out', () => {
    for (const w of ['quiero la baja', 'no', 'más', 'stop it', 'parar ya mismo', 'ALTA', 'alto ahí', '']) expect(isOptOut(w), w).toBe(false);
  });
  it('ALTA alone is an opt-in', () => {
    for (const w of ['ALTA', 'alta', 'Altá!', ' alta. ']) expect(isOptIn(w), w).toBe(true);
    for (const w of ['dar de alta', 'altas', 'BAJA']) expect(isOptIn(w), w).toBe(false);
  });
});

describe('BSUIDs and phones', () => {
  it("recognises Meta's example BSUIDs and nothing else", () => {
    expect(isBsuid(meta.META_BSUID)).toBe(true);
    expect(isBsuid(meta.META_PARENT_BSUID)).toBe(true);
    for (const v of ['+5491112345678', '5491112345678', 'US13491208655302741918', 'us.1349', 'USA.1349', 'US.', 'US.12 34']) expect(isBsuid(v), v).toBe(false);
  });
  it('phone normalisation never touches a BSUID (even one whose digits form a valid number)', () => {
    expect(toE164(meta.META_BSUID)).toBeNull();
    expect(toE164('BR.5511987654321')).toBeNull();
    expect(toE164('+5511987654321')).toBe('+5511987654321');
    expect(phoneKey(meta.META_BSUID)).toBe(meta.META_BSUID);
    expect(normalizePhoneKey('AR.5491112345678', 'AR')).toBeNull();
    expect(normaliseBlacklistPhone(meta.META_BSUID, 'US')).toBeNull();
  });
  it('keys a person by phone when known, else by BSUID', () => {
    expect(personOf('5491112345678', meta.META_BSUID)).toEqual({ key: '541112345678', phone: '+5491112345678', bsuid: meta.META_BSUID });
    expect(personOf('', meta.META_BSUID)).toEqual({ key: meta.META_BSUID, phone: meta.META_BSUID, bsuid: meta.META_BSUID });
    expect(personOf('', 'not-a-bsuid')).toBeNull();
  });
});

describe('send errors and account updates', () => {
  it('131050 is never retried and never pauses the campaign', () => {
    expect(classifyGraphError(131050, 400)).toEqual({ kind: 'permanent' });
    expect(classifyGraphError(131050, 500)).toEqual({ kind: 'permanent' });
  });
  it('pauses on a ban, a scheduled ban, a deletion and a messaging restriction; not on the rest', () => {
    const value = (p: unknown) => readWebhook(p).changes[0]!.value;
    expect(pauseReason(value(meta.accountBanned(ROUTE)))).toMatch(/suspendió/);
    expect(pauseReason(value(meta.accountBanned(ROUTE, 'SCHEDULE_FOR_DISABLE')))).toMatch(/programó la suspensión.*October 9, 2025/);
    expect(pauseReason(value(meta.accountBanned(ROUTE, 'REINSTATE')))).toBeNull();
    expect(pauseReason(value(meta.accountRestricted(ROUTE)))).toBe(
      'Meta restringió los mensajes iniciados por la empresa en esta cuenta de WhatsApp Business hasta el 19/04/2026 13:59 UTC.',
    );
    // A number's card shows the end on its own line.
    expect(pauseReason(value(meta.accountRestricted(ROUTE)), true)).toBe(
      'Meta restringió los mensajes iniciados por la empresa en esta cuenta de WhatsApp Business.',
    );
    expect(pauseReason(value(meta.accountRestricted(ROUTE, 'RESTRICTED_ADD_PHONE_NUMBER_ACTION')))).toBeNull();
    expect(pauseReason(value(meta.accountViolation(ROUTE)))).toBeNull();
    expect(pauseReason({ event: 'ACCOUNT_DELETED' })).toMatch(/eliminó/);
    expect(pauseReason({ event: 'VOLUME_BASED_PRICING_TIER_UPDATE' })).toBeNull();
  });
  it('reads pricing and recipient_user_id off a status, with or without recipient_id', () => {
    const [s] = readWebhook(meta.statusWebhook(ROUTE, { wamid: 'wamid.X', status: 'sent', recipientId: null, recipientUserId: meta.META_BSUID })).statuses;
    expect(s).toMatchObject({ wamid: 'wamid.X', pricing: { category: 'marketing', type: 'regular', model: 'PMP' }, recipientPhone: null, recipientUserId: meta.META_BSUID });
  });
});

describe('sending by BSUID', () => {
  it('uses `recipient` for a BSUID and `to` for a phone', async () => {
    const bodies: Array<Record<string, unknown>> = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        bodies.push(JSON.parse(raw));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ messages: [{ id: `wamid.${bodies.length}` }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const messenger = createWhatsAppMessenger({ graphUrl: `http://127.0.0.1:${port}/v23.0`, connections: 1 });
    try {
      const base = { phoneNumberId: '1', accessToken: 't', templateName: 'promo', language: 'es', components: [], bizOpaque: 'x' };
      expect(await messenger.send({ ...base, to: meta.META_BSUID })).toEqual({ kind: 'ok', wamid: 'wamid.1' });
      expect(await messenger.send({ ...base, to: '+5491112345678' })).toEqual({ kind: 'ok', wamid: 'wamid.2' });
    } finally {
      await messenger.close();
      server.close();
    }
    expect(bodies[0]).toMatchObject({ recipient: meta.META_BSUID });
    expect(bodies[0]).not.toHaveProperty('to');
    expect(bodies[1]).toMatchObject({ to: '+5491112345678' });
    expect(bodies[1]).not.toHaveProperty('recipient');
  });
});
