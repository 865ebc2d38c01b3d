import { sql } from 'drizzle-orm';
import type { WebhookEvent } from '@masivo/contract/webhooks';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf, type Queryable } from '../../db/sql';

/**
 * Where outbound webhook events are written: the transaction that made them happen adds them
 * to `webhook_outbox`, and the periodic fan-out (engine/webhook-deliveries/) turns them into
 * deliveries. Campaign status changes come from a trigger on `campaigns` (migration 0041);
 * message statuses and replies from the webhook inbox; opt-outs and opt-ins from
 * services/blacklist. An organisation without an enabled endpoint subscribed to the event
 * writes nothing.
 */
export interface OutboxEvent {
  orgId: number;
  type: WebhookEvent;
  campaignId?: number | null;
  data: Record<string, unknown>;
}

/**
 * Adds events whose organisation has an endpoint subscribed (checked in the same statement,
 * one index probe per organisation). `subscribed`: the caller already asked
 * `WebhookSubscriptions`, so the check is skipped (the hot paths).
 */
export async function emitWebhookEvents(db: Queryable, events: readonly OutboxEvent[], opts: { subscribed?: boolean } = {}): Promise<void> {
  if (!events.length) return;
  const rows = events.map((e) => ({ org: e.orgId, type: e.type, campaign: e.campaignId ?? null, data: e.data }));
  await db.execute(sql`insert into webhook_outbox (organization_id, event_type, campaign_id, data)
    select v.org, v.type, v.campaign, v.data
    from jsonb_to_recordset(${jsonParam(rows)}) as v(org int, type text, campaign int, data jsonb)
    ${opts.subscribed ? sql`` : sql`where exists (select 1 from webhook_endpoints e where e.organization_id = v.org and e.enabled and v.type = any(e.events))`}`);
}

/**
 * Which events each organisation's enabled endpoints want, read once and kept `ttlMs` per
 * organisation: the webhook inbox asks for every batch of statuses and replies, and an
 * organisation without endpoints must cost it nothing but a map lookup. A change through the
 * API forgets the organisation in this process; other processes see it within `ttlMs`.
 */
export interface WebhookSubscriptions {
  /** `db`: the caller's transaction when in one (PGlite has a single connection: a second one would wait forever). */
  wants(orgId: number, type: WebhookEvent, db?: Queryable): Promise<boolean>;
  forget(orgId: number): void;
}

export function createWebhookSubscriptions(db: Db, ttlMs = 5_000): WebhookSubscriptions {
  const cache = new Map<number, { types: Set<string>; until: number }>();
  return {
    async wants(orgId, type, tx) {
      const now = Date.now();
      let hit = cache.get(orgId);
      if (!hit || hit.until <= now) {
        const rows = await rowsOf<{ events: string[] }>(tx ?? db, sql`select events from webhook_endpoints where organization_id = ${orgId} and enabled`);
        hit = { types: new Set(rows.flatMap((r) => r.events)), until: now + ttlMs };
        if (cache.size > 10_000) cache.clear();
        cache.set(orgId, hit);
      }
      return hit.types.has(type);
    },
    forget(orgId) {
      cache.delete(orgId);
    },
  };
}

/** The organisations among `orgIds` that want `type`. */
export async function subscribedOrgs(db: Queryable, subs: WebhookSubscriptions, orgIds: Iterable<number>, type: WebhookEvent): Promise<Set<number>> {
  const out = new Set<number>();
  for (const org of new Set(orgIds)) if (await subs.wants(org, type, db)) out.add(org);
  return out;
}

/** One delivery status of a campaign message, as `message.status` carries it (no phone: thin). */
export interface StatusEvent {
  orgId: number;
  campaignId: number;
  recipientId: number;
  status: string;
  at: string;
  errorCode?: number | null;
}

/** Statuses the inbox matched to campaign recipients; one outbox row each, grouped later per campaign. */
export async function announceStatuses(db: Queryable, subs: WebhookSubscriptions, statuses: readonly StatusEvent[]): Promise<void> {
  if (!statuses.length) return;
  const wanted = await subscribedOrgs(db, subs, statuses.map((s) => s.orgId), 'message.status');
  if (!wanted.size) return;
  await emitWebhookEvents(
    db,
    statuses
      .filter((s) => wanted.has(s.orgId))
      .map((s) => ({
        orgId: s.orgId,
        type: 'message.status' as const,
        campaignId: s.campaignId,
        data: { recipient_id: s.recipientId, status: s.status, at: s.at, ...(s.errorCode ? { error_code: s.errorCode } : {}) },
      })),
    { subscribed: true },
  );
}

/** A reply the inbox recorded: which message, campaign and recipient, and the button tapped, if any. */
export interface ReplyEvent {
  orgId: number;
  messageId: number;
  campaignId: number | null;
  recipientId: number | null;
  type: string;
  /** The button's text and payload when the reply is a tap. */
  button: { text: string | null; payload: string | null } | null;
  at: string;
}

export async function announceReplies(db: Queryable, subs: WebhookSubscriptions, replies: readonly ReplyEvent[]): Promise<void> {
  if (!replies.length) return;
  const wanted = await subscribedOrgs(db, subs, replies.map((r) => r.orgId), 'reply.received');
  if (!wanted.size) return;
  await emitWebhookEvents(
    db,
    replies
      .filter((r) => wanted.has(r.orgId))
      .map((r) => ({
        orgId: r.orgId,
        type: 'reply.received' as const,
        campaignId: r.campaignId,
        data: { message_id: r.messageId, campaign_id: r.campaignId, recipient_id: r.recipientId, type: r.type, button: r.button, at: r.at },
      })),
    { subscribed: true },
  );
}

/** A person put on or taken off an organisation's opt-out list. */
export interface OptEvent {
  orgId: number;
  phone: string;
  origin: string;
}

export async function announceOptChanges(db: Queryable, type: 'contact.opted_out' | 'contact.opted_in', changes: readonly OptEvent[]): Promise<void> {
  await emitWebhookEvents(
    db,
    changes.map((c) => ({ orgId: c.orgId, type, data: { phone: c.phone, origin: c.origin } })),
  );
}
