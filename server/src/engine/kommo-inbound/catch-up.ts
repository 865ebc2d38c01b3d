import { and, eq, sql } from 'drizzle-orm';
import type { AppContext } from '../../context';
import type { Db } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import { kommoAccounts } from '../../db/schema/kommo';
import { KOMMO_PAGE_LIMIT } from '../../integrations/kommo/client';
import { KommoError } from '../../integrations/kommo/errors';
import { KOMMO_EVENTS_PAGE_LIMIT, type KommoEvent, type KommoHookApi } from '../../integrations/kommo/hook-api';
import type { KommoContact, KommoCredentials } from '../../integrations/kommo/types';
import type { PeriodicDefinition } from '../../jobs/index';
import { queueInboxDrain } from '../../services/kommo-inbound/drain-jobs';
import { needsLeadEvents, type LeadDemand } from '../../services/kommo-inbound/lead-demand';
import { checkHookSubscription, wantsInbound } from '../../services/kommo-inbound/subscription';
import { CATCHUP_EVENT_TYPES, type CatchupBody } from './inbox-work';

type AccountRow = typeof kommoAccounts.$inferSelect;

export const CATCHUP_JOB = 'kommo-catchup';

export interface CatchUpOptions {
  api?: KommoHookApi;
  leadDemand?: LeadDemand;
  everyMs?: number;
  /** Seconds a change must be old before it is taken in: Kommo may still add to the current second. */
  settleSeconds?: number;
  /** Pages read per account and run, of events and of contacts: the rest waits for the next minute. */
  maxPages?: number;
  /** How often a subscription is checked against Kommo (or retried after a refusal). */
  hookCheckMs?: number;
  /** Accounts caught up at once (each has its own Kommo limit). */
  concurrency?: number;
  now?: () => number;
}

/** Ids remembered at the cursor's second; past it the next read may take one of them again (harmless: an upsert, a deduplicated move). */
const MAX_SEEN = 2_000;

/**
 * The catch-up: every minute, for each account kept current («Mantener contactos al día», or
 * an automation that needs its leads), reads Kommo's events log (stage moves, new leads,
 * deleted contacts) and the contacts changed since its cursors, and puts what it found into the
 * inbox as `source: 'catchup'`. Each page's findings and the cursor they move go in one
 * transaction, so a crash neither loses nor doubles them. It does what the webhooks would, for
 * accounts whose plan has none and for webhooks Kommo never delivered; the worker deduplicates.
 * It also keeps the webhook subscription (first subscription of existing accounts, periodic
 * check) and is the safety net that queues a drain for an inbox left non-empty.
 */
export function kommoCatchUp(ctx: AppContext, opts: CatchUpOptions = {}): PeriodicDefinition {
  return {
    name: CATCHUP_JOB,
    everyMs: opts.everyMs ?? 60_000,
    run: (signal) => runCatchUp(ctx, opts, signal),
  };
}

export async function runCatchUp(ctx: AppContext, opts: CatchUpOptions, signal: AbortSignal): Promise<void> {
  const { db } = ctx;
  const leadDemand = opts.leadDemand ?? needsLeadEvents;
  // Every account: one with «Mantener contactos al día» off may still need its leads, or hold a subscription to drop.
  const accounts = await db.select().from(kommoAccounts);
  const queue = [...accounts];
  const worker = async () => {
    for (let account = queue.shift(); account; account = queue.shift()) {
      if (signal.aborted) return;
      await catchUpAccount(ctx, { ...opts, leadDemand }, account, signal).catch((err: unknown) =>
        ctx.log.warn({ engine: 'kommo-inbound', err, accountId: account.id }, 'Kommo catch-up of an account failed'),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 4) }, worker));

  // Safety net: an inbox row whose drain was never queued (a crash between its commit and the queueing).
  const pending = await rowsOf<{ account_id: number }>(db, sql`select distinct account_id from kommo_inbox where failed_at is null`);
  for (const p of pending) await queueInboxDrain(db, Number(p.account_id));
  if (pending.length > 0) ctx.signals.kommoInboxStored();
  // Rows set aside with an error are deleted by the retention job (engine/data-retention.ts).
  await db.execute(sql`delete from kommo_lead_events_seen where seen_at < now() - interval '3 days'`);
}

async function catchUpAccount(ctx: AppContext, opts: CatchUpOptions & { leadDemand: LeadDemand }, account: AccountRow, signal: AbortSignal): Promise<void> {
  const { wanted } = await wantsInbound(ctx, account, opts.leadDemand);
  const api = opts.api ?? ctx.kommo.hooks;
  const hookCheckMs = opts.hookCheckMs ?? 6 * 3600_000;
  const checkDue = !account.hookCheckedAt || Date.now() - new Date(account.hookCheckedAt).getTime() > hookCheckMs;
  // Subscribe (existing accounts: the first time here), re-check now and then, or unsubscribe what nothing needs.
  if ((wanted && (account.hookStatus === null || checkDue)) || (!wanted && account.hookStatus === 'subscribed')) {
    await checkHookSubscription(ctx, account, { api, leadDemand: opts.leadDemand });
  }
  if (!wanted) return;

  const now = Math.floor((opts.now ?? Date.now)() / 1000);
  const horizon = now - (opts.settleSeconds ?? 5);
  try {
    const creds: KommoCredentials = { subdomain: account.subdomain, accessToken: ctx.secrets.open(account.accessTokenEnc) };
    await catchUpEvents(ctx, api, creds, account, { horizon, now, maxPages: opts.maxPages ?? 10 }, signal);
    await catchUpContacts(ctx, api, creds, account, { horizon, now, maxPages: opts.maxPages ?? 8 }, signal);
    await ctx.db.update(kommoAccounts).set({ catchupLastAt: new Date(), catchupError: null }).where(eq(kommoAccounts.id, account.id));
  } catch (err) {
    if (signal.aborted) throw err;
    const message = err instanceof KommoError || (err instanceof Error && err.name === 'UnreadableTokenError') ? err.message : 'Error interno al consultar Kommo.';
    await ctx.db.update(kommoAccounts).set({ catchupError: message }).where(eq(kommoAccounts.id, account.id));
    if (!(err instanceof KommoError)) throw err;
  }
}

interface Window {
  horizon: number;
  now: number;
  maxPages: number;
}

/**
 * The events log from `catchup_events_from`. The list is read whole (up to the page cap) and
 * sorted, so its order does not matter; events of the last seconds wait for the next run
 * (Kommo may still log more at that second), and those at the cursor's second already taken
 * in are skipped by id.
 */
async function catchUpEvents(ctx: AppContext, api: KommoHookApi, creds: KommoCredentials, account: AccountRow, w: Window, signal: AbortSignal) {
  const from = account.catchupEventsFrom;
  if (from === null) {
    // The first run starts now: what happened before is the full sync's.
    await moveCursor(ctx.db, account.id, { eventsFrom: [null, w.horizon, []] }, null);
    return;
  }
  const seen = new Set(account.catchupEventsSeen ?? []);
  const found = new Map<string, KommoEvent>();
  for (let page = 1; page <= w.maxPages; page++) {
    const list = await api.eventsPage(creds, { types: [...CATCHUP_EVENT_TYPES], from, page, limit: KOMMO_EVENTS_PAGE_LIMIT }, signal);
    if (list === null) break;
    for (const e of list) found.set(e.id, e);
    if (list.length < KOMMO_EVENTS_PAGE_LIMIT) break;
  }
  const fresh = [...found.values()]
    .filter((e) => e.createdAt >= from && e.createdAt <= w.horizon && !(e.createdAt === from && seen.has(e.id)))
    .sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  if (fresh.length === 0) return;
  const to = fresh[fresh.length - 1].createdAt;
  const atTo = fresh.filter((e) => e.createdAt === to).map((e) => e.id);
  const nextSeen = (to === from ? [...seen, ...atTo] : atTo).slice(-MAX_SEEN);
  await moveCursor(ctx.db, account.id, { eventsFrom: [from, to, nextSeen] }, { events: fresh });
}

/**
 * Contacts changed since `catchup_contacts_from`, oldest first, by keyset like the sync's walk:
 * each page starts at the last second seen, and pages by number only while a whole page shares
 * one second. The contacts themselves go into the inbox, so the worker needs no second request.
 */
async function catchUpContacts(ctx: AppContext, api: KommoHookApi, creds: KommoCredentials, account: AccountRow, w: Window, signal: AbortSignal) {
  let from = account.catchupContactsFrom;
  if (from === null) {
    // From where the last sync stopped, read in this same run (so a contact changed after the
    // first sync shows within a minute); an account never synced starts now (its first sync reads everything).
    const start = account.syncWatermark ?? w.horizon;
    await moveCursor(ctx.db, account.id, { contactsFrom: [null, start, []] }, null);
    if (account.syncWatermark === null) return;
    from = start;
  }
  let seen = new Set(account.catchupContactsSeen ?? []);
  let page = 1;
  for (let read = 0; read < w.maxPages; read++) {
    const list = await api.contactsUpdatedSince(creds, { from, page, limit: KOMMO_PAGE_LIMIT }, signal);
    if (list === null) return;
    const settled = list.filter((c) => Number(c.updated_at ?? 0) <= w.horizon);
    const current = from;
    const fresh = settled.filter((c) => Number(c.updated_at ?? 0) >= current && !(Number(c.updated_at ?? 0) === current && seen.has(Number(c.id))));
    if (fresh.length > 0) {
      const to = Math.max(...fresh.map((c) => Number(c.updated_at ?? 0)));
      const atTo = fresh.filter((c) => Number(c.updated_at ?? 0) === to).map((c) => Number(c.id));
      const nextSeen = (to === from ? [...seen, ...atTo] : atTo).slice(-MAX_SEEN);
      await moveCursor(ctx.db, account.id, { contactsFrom: [from, to, nextSeen] }, { contacts: fresh as KommoContact[] });
      from = to;
      seen = new Set(nextSeen);
    }
    // A short page is the end; a page cut by the horizon is the end for this run.
    if (list.length < KOMMO_PAGE_LIMIT || settled.length < list.length) return;
    const lastTs = Number(list[list.length - 1].updated_at ?? 0);
    page = lastTs > current ? 1 : page + 1;
  }
}

/**
 * Moves a cursor (only from where this run read it: a concurrent run finds it moved and writes
 * nothing) and stores the findings, in one transaction; then queues the account's drain.
 */
async function moveCursor(
  db: Db,
  accountId: number,
  move: { eventsFrom?: [number | null, number, string[]]; contactsFrom?: [number | null, number, number[]] },
  findings: CatchupBody | null,
) {
  const stored = await db.transaction(async (tx) => {
    const set: Partial<typeof kommoAccounts.$inferInsert> = {};
    let where = eq(kommoAccounts.id, accountId);
    if (move.eventsFrom) {
      const [before, to, seen] = move.eventsFrom;
      Object.assign(set, { catchupEventsFrom: to, catchupEventsSeen: seen });
      where = and(where, sql`${kommoAccounts.catchupEventsFrom} is not distinct from ${before}::bigint`)!;
    }
    if (move.contactsFrom) {
      const [before, to, seen] = move.contactsFrom;
      Object.assign(set, { catchupContactsFrom: to, catchupContactsSeen: seen });
      where = and(where, sql`${kommoAccounts.catchupContactsFrom} is not distinct from ${before}::bigint`)!;
    }
    const moved = await tx.update(kommoAccounts).set(set).where(where).returning({ id: kommoAccounts.id });
    if (moved.length === 0 || !findings) return false;
    await tx.execute(sql`insert into kommo_inbox (account_id, source, body) values (${accountId}, 'catchup', ${jsonParam(findings)})`);
    return true;
  });
  if (stored) await queueInboxDrain(db, accountId);
}
