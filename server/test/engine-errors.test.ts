import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { retryFailed, retryUnknown } from '../src/services/campaigns/retry-failed';
import { startCampaign } from '../src/services/campaigns/start-campaign';
import { rowsOf } from '../src/db/sql';
import { phoneKey } from '../src/lib/phone';
import { digitsOf, phoneOf } from './helpers/campaign-fixtures';
import { countersFromRows, startEngineBed, waitFor, type EngineBed } from './helpers/engine-bed';

const A = { phoneNumberId: '1001', wabaId: '2001', token: 'tok-a', rate: 40 };

let bed: EngineBed;
beforeAll(async () => {
  bed = await startEngineBed({ numbers: [A], contacts: 20 });
});
afterAll(() => bed?.close());
beforeEach(() => bed.sim.reset());

const settled = (id: number, extra: (c: Awaited<ReturnType<EngineBed['campaign']>>) => boolean = () => true) =>
  waitFor(() => bed.campaign(id), (c) => c.status === 'completed' && extra(c), 20_000, `campaign ${id} settled`);

async function recipient(campaignId: number, phone: string) {
  const [r] = await rowsOf<{
    id: number;
    status: string;
    attempts: number;
    error_code: number | null;
    error_message: string | null;
    wait_ms: number;
  }>(
    bed.t.ctx.db,
    sql`select id::int as id, status, attempts, error_code, error_message,
          (extract(epoch from (next_attempt_at - now())) * 1000)::int as wait_ms
        from campaign_recipients where campaign_id = ${campaignId} and phone = ${phone}`,
  );
  return r;
}

describe('errors by class', () => {
  it('delays only the recipient hitting the pair limit, with 4^X backoff, while the others go on', async () => {
    bed.sim.setRecipientBehaviour(digitsOf(3), 'pair_limit');
    try {
      const c = await bed.launch(0, {}, 'Límite por destinatario');
      // Everyone else is sent while number 3 waits.
      await waitFor(() => bed.campaign(c.id), (x) => x.messages_sent === 19, 10_000, 'others sent');
      const first = await waitFor(
        () => recipient(c.id, phoneOf(3)),
        (r) => r.attempts >= 2 && r.status === 'pending',
        10_000,
        'second pair-limit attempt',
      );
      expect(first).toMatchObject({ error_code: 131056 });
      // After the second failure Meta's 4^X rule asks for about 4 s.
      expect(first.wait_ms).toBeGreaterThan(2_500);
      expect(first.wait_ms).toBeLessThanOrEqual(4_300);
      expect((await bed.campaign(c.id)).status).toBe('sending');
      bed.sim.setRecipientBehaviour(digitsOf(3), 'ok');
      const done = await settled(c.id, (x) => x.delivered_count === 20);
      expect(done).toMatchObject({ messages_sent: 20, failed_count: 0 });
      expect((await recipient(c.id, phoneOf(3))).attempts).toBe(3);
      expect(bed.sim.countsByRecipient().get(digitsOf(3))).toBe(1);
    } finally {
      bed.sim.setRecipientBehaviour(digitsOf(3), 'ok');
    }
  });

  it('records permanent errors per recipient, synchronous or by webhook, without retrying them', async () => {
    bed.sim.setRecipientBehaviour(digitsOf(5), 'not_on_whatsapp');
    bed.sim.injectFault({ kind: 'code', code: 131009, count: 1 });
    try {
      const c = await bed.launch(0, {}, 'Errores permanentes');
      const done = await settled(c.id, (x) => x.failed_count === 2 && x.read_count === 18);
      expect(done).toMatchObject({ total_recipients: 20, messages_sent: 19, delivered_count: 18, failed_count: 2 });
      const notOnWhatsApp = await recipient(c.id, phoneOf(5));
      expect(notOnWhatsApp).toMatchObject({ status: 'failed', error_code: 131026, attempts: 1 });
      const [sync] = await rowsOf<{ error_code: number; attempts: number; error_message: string }>(
        bed.t.ctx.db,
        sql`select error_code, attempts, error_message from campaign_recipients
            where campaign_id = ${c.id} and status = 'failed' and error_code = 131009`,
      );
      expect(sync).toMatchObject({ error_code: 131009, attempts: 1 });
      expect(sync.error_message).toMatch(/131009/);
      expect(bed.sim.messages()).toHaveLength(19);
      expect(await countersFromRows(bed, c.id)).toMatchObject({ failed_count: 2, messages_sent: 19 });
    } finally {
      bed.sim.setRecipientBehaviour(digitsOf(5), 'ok');
    }
  });

  it('retries transient errors (5xx) and sends once they pass', async () => {
    bed.sim.injectFault({ kind: '5xx', count: 3 });
    const c = await bed.launch(0, {}, 'Errores transitorios');
    const done = await settled(c.id, (x) => x.delivered_count === 20);
    expect(done).toMatchObject({ messages_sent: 20, failed_count: 0 });
    expect(bed.sim.messages()).toHaveLength(20);
    expect(bed.sim.duplicates()).toEqual([]);
  });

  it('pauses the campaign with a reason on a systemic error, and resumes when the operator starts it', async () => {
    bed.sim.injectFault({ kind: 'invalid_token', count: 1 });
    const c = await bed.launch(0, {}, 'Token vencido');
    const paused = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'paused', 5_000, 'paused');
    expect(paused.pause_reason).toMatch(/token de acceso/i);
    expect(paused.pause_reason).toMatch(/190/);
    await new Promise((r) => setTimeout(r, 300));
    const sentWhilePaused = bed.sim.messages().length;
    await new Promise((r) => setTimeout(r, 500));
    expect(bed.sim.messages().length).toBe(sentWhilePaused);
    expect(await bed.statuses(c.id)).not.toHaveProperty('sending');

    const resumed = await startCampaign(bed.t.ctx, bed.userId, c.id);
    expect(resumed.pause_reason).toBeNull();
    const done = await settled(c.id, (x) => x.delivered_count === 20);
    expect(done.messages_sent).toBe(20);
    expect(bed.sim.duplicates()).toEqual([]);
  });

  it('pauses campaigns of a number that is switched off or rated RED', async () => {
    await bed.t.ctx.db.execute(sql`update whatsapp_accounts set quality_rating = 'RED' where id = ${bed.worlds[0].whatsappAccountId}`);
    try {
      const c = await bed.launch(0, {}, 'Calidad roja');
      const paused = await waitFor(() => bed.campaign(c.id), (x) => x.status === 'paused', 8_000, 'paused for RED');
      expect(paused.pause_reason).toMatch(/RED/);
    } finally {
      await bed.t.ctx.db.execute(sql`update whatsapp_accounts set quality_rating = 'GREEN' where id = ${bed.worlds[0].whatsappAccountId}`);
    }
  });

  it('skips numbers blacklisted after the audience was frozen', async () => {
    const c = await bed.launch(0, {}, 'Lista negra');
    // Added while the campaign runs: checked again right before each send.
    await bed.t.ctx.db.execute(sql`insert into blacklist (user_id, account_id, phone, phone_key, reason)
      values (${bed.userId}, ${bed.worlds[0].kommoAccountId}, ${phoneOf(20)}, ${phoneKey(phoneOf(20))}, 'pidió la baja'),
             (${bed.userId}, ${bed.worlds[0].kommoAccountId}, ${phoneOf(19)}, ${phoneKey(phoneOf(19))}, null)`);
    const done = await settled(c.id, (x) => x.delivered_count === x.messages_sent);
    expect(done).toMatchObject({ skipped_count: 2, messages_sent: 18 });
    expect(await recipient(c.id, phoneOf(20))).toMatchObject({ status: 'skipped', error_message: 'Número en la lista negra' });
    expect(bed.sim.countsByRecipient().has(digitsOf(20))).toBe(false);
    await bed.t.ctx.db.execute(sql`delete from blacklist where user_id = ${bed.userId}`);
  });
});

describe('no duplicate sends when the outcome of a request is lost', () => {
  it('never resends a request whose response was lost; its webhook settles it', async () => {
    bed.sim.injectFault({ kind: 'lost_response', count: 1 });
    const c = await bed.launch(0, {}, 'Respuesta perdida');
    const done = await settled(c.id, (x) => x.read_count === 20);
    expect(done).toMatchObject({ messages_sent: 20, unknown_count: 0, failed_count: 0 });
    expect(bed.sim.messages()).toHaveLength(20);
    expect(bed.sim.duplicates()).toEqual([]);
    expect([...bed.sim.countsByRecipient().values()].every((n) => n === 1)).toBe(true);
  });

  it('marks a request with no answer and no webhook unknown after the grace period; retry sends it again', async () => {
    bed.sim.injectFault({ kind: 'timeout', count: 1 });
    const c = await bed.launch(0, {}, 'Sin respuesta');
    const done = await settled(c.id);
    expect(done).toMatchObject({ unknown_count: 1, messages_sent: 19 });
    const [unknown] = await rowsOf<{ phone: string; error_message: string }>(
      bed.t.ctx.db,
      sql`select phone, error_message from campaign_recipients where campaign_id = ${c.id} and status = 'unknown'`,
    );
    expect(unknown.error_message).toMatch(/Sin confirmación/);
    // The simulator never accepted it (a timeout is not recorded), so the operator's retry is safe here.
    expect(bed.sim.countsByRecipient().has(unknown.phone.slice(1))).toBe(false);

    // Unknown recipients are retried apart, with the operator's confirmation.
    expect(await retryFailed(bed.t.ctx, bed.userId, c.id)).toMatchObject({ unknown_count: 1, pending_count: 0 });
    const retried = await retryUnknown(bed.t.ctx, bed.userId, c.id);
    expect(retried).toMatchObject({ status: 'sending', unknown_count: 0, pending_count: 1 });
    const again = await settled(c.id, (x) => x.delivered_count === 20);
    expect(again).toMatchObject({ messages_sent: 20, unknown_count: 0 });
    expect(bed.sim.countsByRecipient().get(unknown.phone.slice(1))).toBe(1);
    // Nobody who had the message got it twice.
    expect(bed.sim.duplicates()).toEqual([]);
  });
});
