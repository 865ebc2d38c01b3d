import { eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { jsonParam, rowsOf } from '../../db/sql';
import { kommoAccounts } from '../../db/schema/kommo';
import { KOMMO_IDS_PER_LOOKUP, type KommoClient } from '../../integrations/kommo/client';
import type { KommoContact, KommoCredentials } from '../../integrations/kommo/types';
import { JobLeaseLost, stillHolds } from '../../jobs/index';
import type { Log } from '../../lib/log';
import { accountCountry } from '../../lib/phone';
import { mapContact } from '../kommo-sync/contact-mapper';
import { upsertContacts } from '../kommo-sync/contact-writer';
import { workOf, type ContactAction, type InboxRow, type RowWork } from './inbox-work';
import type { LeadEventsHandler, LeadStageEvent } from './lead-events';

/** Inbox rows applied together: their contacts are looked up in shared batches of 100. */
export const DRAIN_BATCH_ROWS = 50;

export interface DrainDeps {
  db: Db;
  client: Pick<KommoClient, 'contactsByIds'>;
  openToken(sealed: string): string;
  onLeadEvents: LeadEventsHandler;
  log: Log;
  /** The job's lease: every write is fenced by it. */
  jobId: string;
  owner: string;
}

type AccountRow = typeof kommoAccounts.$inferSelect;

/**
 * Applies an account's inbox in id order until it is empty. A Kommo failure (or a lost lease,
 * or a stop) ends the run with the rows still there, for the runner's retry schedule; a row
 * that cannot be applied for any other reason keeps its error (`failed_at`) and is skipped, so
 * it never blocks the rows behind it.
 */
export async function drainInbox(deps: DrainDeps, accountId: number, signal: AbortSignal): Promise<void> {
  const [account] = await deps.db.select().from(kommoAccounts).where(eq(kommoAccounts.id, accountId));
  if (!account) return; // removed: its inbox went with it
  for (;;) {
    signal.throwIfAborted();
    const rows = await rowsOf<{ id: string; source: 'webhook' | 'catchup'; body: unknown; received: string }>(
      deps.db,
      sql`select id, source, body, extract(epoch from received_at)::bigint as received from kommo_inbox
          where account_id = ${accountId} and failed_at is null order by id limit ${DRAIN_BATCH_ROWS}`,
    );
    if (rows.length === 0) return;
    const items: Array<{ row: InboxRow; work: RowWork }> = [];
    for (const r of rows) {
      const row: InboxRow = { id: Number(r.id), source: r.source, body: typeof r.body === 'string' ? JSON.parse(r.body) : r.body, receivedAt: Number(r.received) };
      try {
        items.push({ row, work: workOf(row) });
      } catch (err) {
        await setAside(deps, row.id, err);
      }
    }
    if (items.length === 0) continue;
    try {
      await applyRows(deps, account, items, signal);
    } catch (err) {
      if (!isRowFault(err, signal)) throw err;
      // One of them is at fault: each on its own, so only that one is set aside.
      for (const item of items) {
        try {
          await applyRows(deps, account, [item], signal);
        } catch (e) {
          if (!isRowFault(e, signal)) throw e;
          await setAside(deps, item.row.id, e);
        }
      }
    }
  }
}

/** Raised by what Kommo (or the stored token) did: the whole account waits for the retry. */
class AccountFailure extends Error {
  constructor(readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

const isRowFault = (err: unknown, signal: AbortSignal) => !(err instanceof AccountFailure || err instanceof JobLeaseLost || signal.aborted);

async function setAside(deps: DrainDeps, rowId: number, err: unknown) {
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 500);
  deps.log.warn({ engine: 'kommo-inbound', inboxId: rowId, err }, 'Kommo inbox row set aside');
  await deps.db.execute(sql`update kommo_inbox set failed_at = now(), error = ${message} where id = ${rowId}`);
}

async function applyRows(deps: DrainDeps, account: AccountRow, items: Array<{ row: InboxRow; work: RowWork }>, signal: AbortSignal) {
  // The last word on each contact wins: deleted then added again is added, edited then deleted is deleted.
  const actions = new Map<number, ContactAction>();
  for (const { work } of items) {
    for (const [id, action] of work.contacts) {
      actions.delete(id);
      actions.set(id, action);
    }
  }
  const upserts: KommoContact[] = [];
  const deletes: number[] = [];
  const lookups: number[] = [];
  for (const [id, action] of actions) {
    if (action.kind === 'delete') deletes.push(id);
    else if (action.kind === 'lookup') lookups.push(id);
    else upserts.push(action.contact);
  }
  try {
    if (lookups.length > 0) {
      const creds: KommoCredentials = { subdomain: account.subdomain, accessToken: deps.openToken(account.accessTokenEnc) };
      for (let at = 0; at < lookups.length; at += KOMMO_IDS_PER_LOOKUP) {
        const ids = lookups.slice(at, at + KOMMO_IDS_PER_LOOKUP);
        const wanted = new Set(ids);
        // A contact Kommo no longer lists is left for its delete (webhook or event) or the full sync.
        upserts.push(...(await deps.client.contactsByIds(creds, ids, signal)).filter((c) => wanted.has(Number(c.id))));
      }
    }
  } catch (err) {
    throw new AccountFailure(err);
  }
  const leads = uniqueMoves(items.flatMap((i) => i.work.leads));
  const mapper = { phoneFieldId: account.phoneFieldId, country: accountCountry({ defaultCountry: account.defaultCountry, country: account.country }) };

  await deps.db.transaction(async (tx) => {
    if (!(await stillHolds(tx, deps.jobId, deps.owner))) throw new JobLeaseLost();
    if (upserts.length > 0) {
      // The account's generation as it is now: during a full sync the new one, so the sync
      // counts these contacts as seen (Kommo just said they exist) and never prunes them.
      const [{ g }] = await rowsOf<{ g: number }>(tx, sql`select sync_generation as g from kommo_accounts where id = ${account.id}`);
      await upsertContacts(tx, { userId: account.userId, accountId: account.id, generation: Number(g), contacts: upserts.map((c) => mapContact(c, mapper)) });
    }
    if (deletes.length > 0) {
      await tx.execute(sql`delete from contacts where account_id = ${account.id} and kommo_id = any(${`{${deletes.join(',')}}`}::bigint[])`);
    }
    const fresh = await firstSeen(tx, account.id, leads);
    if (fresh.length > 0) await deps.onLeadEvents(tx, { organizationId: account.userId, accountId: account.id }, fresh);
    await tx.execute(sql`delete from kommo_inbox where id = any(${`{${items.map((i) => i.row.id).join(',')}}`}::bigint[])`);
  });
}

const moveKey = (e: LeadStageEvent) => `${e.leadId}:${e.statusId}:${e.at}`;

function uniqueMoves(events: LeadStageEvent[]): LeadStageEvent[] {
  const seen = new Map<string, LeadStageEvent>();
  for (const e of events) if (!seen.has(moveKey(e))) seen.set(moveKey(e), e);
  return [...seen.values()];
}

/** The moves not handed over before (by either source), recorded as handed over now. */
async function firstSeen(tx: Tx, accountId: number, events: LeadStageEvent[]): Promise<LeadStageEvent[]> {
  if (events.length === 0) return [];
  const rows = await rowsOf<{ lead_id: string; status_id: string; at: string }>(
    tx,
    sql`insert into kommo_lead_events_seen (account_id, lead_id, status_id, at)
        select ${accountId}, x.lead_id, x.status_id, x.at
        from jsonb_to_recordset(${jsonParam(events.map((e) => ({ lead_id: e.leadId, status_id: e.statusId, at: e.at })))}) as x(lead_id bigint, status_id bigint, at bigint)
        on conflict do nothing
        returning lead_id, status_id, at`,
  );
  const fresh = new Set(rows.map((r) => `${r.lead_id}:${r.status_id}:${r.at}`));
  return events.filter((e) => fresh.has(moveKey(e)));
}
