import { sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { intArray, rowsOf } from '../../db/sql';
import type { PostOutcome, ReceiverClient } from '../../integrations/webhook-receivers/post-webhook';
import { recordActivity, SYSTEM } from '../../services/activity/activity-log';
import { webhookHeaders } from '../../services/webhook-endpoints/webhook-signature';
import { Wakeable } from '../campaigns/wakeable';
import type { WebhookDeliveryOptions } from './options';

interface Claimed {
  id: string;
  endpoint_id: number;
  organization_id: number;
  msg_id: string;
  body: string;
  attempts: number;
}

interface EndpointRow {
  id: number;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_valid: boolean;
}

/**
 * Sends due deliveries. The deliveries table is the queue: a claim writes a lease on due rows
 * (`for update skip locked`, so workers in several processes share it), every outcome is written
 * only while the lease is still this process's, and a process that dies leaves its leases to
 * expire, after which another process sends the delivery again with the same webhook-id and body.
 * In-flight attempts are bounded per endpoint and in total, so one slow receiver (10 s timeout)
 * only ever holds its own `perEndpoint` slots.
 */
export class WebhookDeliveryWorker {
  private readonly wakeable = new Wakeable();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly perEndpoint = new Map<number, number>();
  private stopping = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: WebhookDeliveryOptions,
    private readonly client: ReceiverClient,
  ) {}

  start() {
    this.loop = this.run();
  }

  wake() {
    this.wakeable.wake();
  }

  /** No new claims; attempts in flight get `stopTimeoutMs`, then their leases go back so another process resends at once. */
  async stop() {
    this.stopping = true;
    this.wakeable.wake();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      Promise.allSettled([...this.inflight.values()]).then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), this.opts.stopTimeoutMs))),
    ]);
    clearTimeout(timer);
    if (late && this.inflight.size) {
      await this.ctx.db
        .execute(sql`update webhook_deliveries set lease_owner = null, lease_expires_at = null
                     where lease_owner = ${this.ctx.instanceId} and state = 'pending'`)
        .catch(() => undefined);
    }
  }

  private async run() {
    while (!this.stopping) {
      const free = this.opts.maxConcurrent - this.inflight.size;
      let launched = 0;
      if (free > 0) {
        try {
          launched = await this.claimAndLaunch(free);
        } catch (err) {
          this.ctx.log.warn({ engine: 'webhooks', err }, 'claiming webhook deliveries failed');
        }
      }
      if (launched === 0 || launched >= free) await this.wakeable.sleep(this.opts.pollMs);
    }
  }

  /** Claims up to `free` due deliveries, at most `perEndpoint` in flight per endpoint; returns how many started. */
  private async claimAndLaunch(free: number): Promise<number> {
    const busy = [...this.perEndpoint].filter(([, n]) => n >= this.opts.perEndpoint).map(([id]) => id);
    const claimed = await rowsOf<Claimed>(
      this.ctx.db,
      sql`update webhook_deliveries d set lease_owner = ${this.ctx.instanceId},
                 lease_expires_at = now() + make_interval(secs => ${this.opts.leaseMs / 1000})
          from (select d2.id from webhook_deliveries d2
                join webhook_endpoints e on e.id = d2.endpoint_id and e.enabled
                where d2.state = 'pending' and d2.next_attempt_at <= now()
                  and (d2.lease_expires_at is null or d2.lease_expires_at < now())
                  and not (d2.endpoint_id = any(${intArray(busy)}))
                order by d2.next_attempt_at, d2.id
                limit ${free}
                for update of d2 skip locked) c
          where d.id = c.id
          returning d.id::text as id, d.endpoint_id, d.organization_id, d.msg_id, d.body, d.attempts`,
    );
    if (!claimed.length) return 0;
    claimed.sort((a, b) => Number(a.id) - Number(b.id));
    const keep: Claimed[] = [];
    const giveBack: string[] = [];
    const counts = new Map(this.perEndpoint);
    for (const d of claimed) {
      const n = counts.get(d.endpoint_id) ?? 0;
      if (n >= this.opts.perEndpoint) giveBack.push(d.id);
      else {
        counts.set(d.endpoint_id, n + 1);
        keep.push(d);
      }
    }
    if (giveBack.length) {
      await this.ctx.db.execute(sql`update webhook_deliveries set lease_owner = null, lease_expires_at = null
        where id = any(${`{${giveBack.join(',')}}`}::bigint[]) and lease_owner = ${this.ctx.instanceId}`);
    }
    const endpoints = await this.endpointsOf(keep.map((d) => d.endpoint_id));
    for (const d of keep) this.launch(d, endpoints.get(d.endpoint_id));
    return keep.length;
  }

  private async endpointsOf(ids: number[]): Promise<Map<number, EndpointRow>> {
    const rows = await rowsOf<EndpointRow>(
      this.ctx.db,
      sql`select id, url, secret_sealed, previous_secret_sealed, coalesce(previous_secret_expires_at > now(), false) as previous_valid
          from webhook_endpoints where id = any(${intArray([...new Set(ids)])})`,
    );
    return new Map(rows.map((r) => [Number(r.id), r]));
  }

  private launch(d: Claimed, endpoint: EndpointRow | undefined) {
    this.perEndpoint.set(d.endpoint_id, (this.perEndpoint.get(d.endpoint_id) ?? 0) + 1);
    const done = this.attempt(d, endpoint)
      .catch((err: unknown) => this.ctx.log.warn({ engine: 'webhooks', err }, 'recording a webhook attempt failed'))
      .finally(() => {
        this.inflight.delete(d.id);
        const n = (this.perEndpoint.get(d.endpoint_id) ?? 1) - 1;
        if (n <= 0) this.perEndpoint.delete(d.endpoint_id);
        else this.perEndpoint.set(d.endpoint_id, n);
        this.wakeable.wake();
      });
    this.inflight.set(d.id, done);
  }

  private async attempt(d: Claimed, endpoint: EndpointRow | undefined) {
    if (!endpoint) return; // deleted meanwhile: its deliveries went with it
    let outcome: PostOutcome;
    try {
      const secrets = [this.ctx.secrets.open(endpoint.secret_sealed)];
      if (endpoint.previous_valid && endpoint.previous_secret_sealed) secrets.push(this.ctx.secrets.open(endpoint.previous_secret_sealed));
      outcome = await this.client.post(endpoint.url, webhookHeaders(secrets, d.msg_id, d.body), d.body);
    } catch {
      outcome = { statusCode: null, excerpt: null, durationMs: 0, error: 'El secreto guardado ya no se puede leer (cambió la clave del servidor): rota el secreto' };
    }
    await this.record(d, outcome);
  }

  /** One attempt's outcome: the attempt row, the delivery's next step, and the endpoint's failure streak. */
  private async record(d: Claimed, o: PostOutcome) {
    const ok = o.statusCode !== null && o.statusCode >= 200 && o.statusCode < 300;
    const gone = o.statusCode === 410;
    const attempts = Number(d.attempts) + 1;
    const scheduled = ok || gone ? undefined : this.opts.retryDelaysMs[attempts - 1];
    // A receiver that asks for a pause (429/503 with Retry-After) gets at least that long.
    const delay = scheduled === undefined ? undefined : Math.max(scheduled, o.retryAfterMs ?? 0);
    const state = ok ? 'delivered' : gone || delay === undefined ? 'failed' : 'pending';
    const lastError = ok ? null : (o.error ?? `El receptor respondió ${o.statusCode}`);
    const delaySecs = delay === undefined ? 0 : jitter(delay) / 1000;
    await this.ctx.db.transaction(async (tx) => {
      const held = await rowsOf(
        tx,
        sql`update webhook_deliveries set state = ${state}, attempts = ${attempts}, last_status_code = ${o.statusCode},
                   last_error = ${lastError}, lease_owner = null, lease_expires_at = null,
                   next_attempt_at = case when ${state} = 'pending' then now() + make_interval(secs => ${delaySecs}) else next_attempt_at end,
                   finished_at = case when ${state} = 'pending' then null else now() end
            where id = ${d.id} and lease_owner = ${this.ctx.instanceId}
            returning id`,
      );
      if (!held.length) return; // taken over by another process after the lease expired: its outcome counts
      await tx.execute(sql`insert into webhook_delivery_attempts (delivery_id, status_code, duration_ms, response_excerpt, error)
        values (${d.id}, ${o.statusCode}, ${o.durationMs}, ${o.excerpt}, ${o.error})`);
      if (ok) {
        await tx.execute(sql`update webhook_endpoints set failing_since = null where id = ${d.endpoint_id} and failing_since is not null`);
        return;
      }
      if (gone) {
        await this.disable(tx, d, 'El receptor respondió 410 (Gone): el webhook se desactivó');
        return;
      }
      const [streak] = await rowsOf<{ expired: boolean; since: string }>(
        tx,
        sql`update webhook_endpoints set failing_since = coalesce(failing_since, now())
            where id = ${d.endpoint_id} and enabled
            returning failing_since <= now() - make_interval(secs => ${this.opts.disableAfterMs / 1000}) as expired,
                      to_char(failing_since at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as since`,
      );
      if (streak?.expired) {
        const days = Math.round(this.opts.disableAfterMs / 86_400_000);
        await this.disable(tx, d, `Sus entregas fallaron durante ${days} días seguidos (desde ${streak.since} UTC): el webhook se desactivó`);
      }
    });
  }

  /** Disables the endpoint with the reason the screen shows, and says so in the activity log («sistema»). */
  private async disable(tx: Parameters<Parameters<AppContext['db']['transaction']>[0]>[0], d: Claimed, reason: string) {
    const [endpoint] = await rowsOf<{ id: number; url: string }>(
      tx,
      sql`update webhook_endpoints set enabled = false, disabled_reason = ${reason}, disabled_at = now(), updated_at = now()
          where id = ${d.endpoint_id} and enabled returning id, url`,
    );
    if (!endpoint) return;
    this.ctx.webhookSubscriptions.forget(d.organization_id);
    await recordActivity(tx, SYSTEM(d.organization_id), {
      action: 'webhook.disabled',
      target: { type: 'webhook_endpoint', id: endpoint.id, name: endpoint.url },
      reason,
    });
  }
}

/** Retries a minute or more apart spread by ±10 %, so receivers that failed together are not retried together. */
function jitter(ms: number): number {
  return ms >= 60_000 ? ms * (0.9 + Math.random() * 0.2) : ms;
}
