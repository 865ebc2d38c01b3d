import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { kommoAccounts, kommoCustomFields } from '../../db/schema/kommo';
import type { KommoClient } from '../../integrations/kommo/client';
import { KOMMO_PAGE_LIMIT } from '../../integrations/kommo/client';
import type { KommoCredentials } from '../../integrations/kommo/types';
import { accountCountry, countryCode } from '../../lib/phone';
import { mapContact } from './contact-mapper';
import { removeUnseen, upsertContacts } from './contact-writer';
import { walkContacts } from './page-walker';
import { confirmUnseen } from './prune-guard';
import { LeaseLostError } from './sync-errors';
import { MAX_BOUNDARY_IDS, parseSyncState, type SyncState } from './sync-state';

type AccountRow = typeof kommoAccounts.$inferSelect;

/** An incremental sync is offered only while the last full one (which prunes deletions) is this recent. */
export const FULL_SYNC_EVERY_MS = 24 * 3600_000;

export { LeaseLostError };

export interface SyncJobDeps {
  db: Db;
  client: KommoClient;
  owner: string;
  leaseMs: number;
  /** Cap on pages one sync reads (tests lower it). */
  maxPages?: number;
  openToken(sealed: string): string;
}

/**
 * Runs (or resumes) the sync of one claimed account to its end. Each page is written in one
 * transaction together with the cursor, so a crash loses at most the page being written.
 * Throws on Kommo failure; the caller records the message.
 */
export async function runSyncJob(deps: SyncJobDeps, account: AccountRow, signal: AbortSignal): Promise<void> {
  const { db, client } = deps;
  const creds: KommoCredentials = { subdomain: account.subdomain, accessToken: deps.openToken(account.accessTokenEnc) };
  let state = parseSyncState(account.syncState);
  let country = account.country;

  if (!state.mode || !state.cursor) {
    // A fresh sync: the account's country (for national-format phones) and its field names.
    const info = await client.account(creds, signal);
    country = countryCode(info.country) ?? null;
    const fields = await client.customFields(creds, signal);
    const full =
      state.requested === 'full' ||
      account.syncWatermark === null ||
      !account.syncFullAt ||
      Date.now() - new Date(account.syncFullAt).getTime() > FULL_SYNC_EVERY_MS;
    state = {
      requested: state.requested,
      mode: full ? 'full' : 'incremental',
      generation: full ? account.syncGeneration + 1 : account.syncGeneration,
      cursor: { from: full ? 0 : (account.syncWatermark ?? 0), startPage: 1 },
      boundaryIds: [],
      maxUpdatedAt: full ? 0 : (account.syncWatermark ?? 0),
      processed: 0,
      estimate: full ? account.syncTotalContacts : 0,
    };
    await db.transaction(async (tx) => {
      await tx.delete(kommoCustomFields).where(eq(kommoCustomFields.accountId, account.id));
      if (fields.length > 0) {
        const unique = [...new Map(fields.map((f) => [f.id, f])).values()];
        await tx.insert(kommoCustomFields).values(
          unique.map((f) => ({ accountId: account.id, userId: account.userId, fieldId: f.id, name: f.name, type: f.type, code: f.code })),
        );
      }
      // The generation is taken at once, so a full sync that fails or is cancelled never lends its
      // stamp to the next one (whose unseen contacts must really be unseen).
      await saveProgress(tx, deps, account.id, state, { country, generation: state.generation });
    });
  }

  // The operator's default country wins over Kommo's (national numbers of another country).
  const mapperOpts = { phoneFieldId: account.phoneFieldId, country: accountCountry({ defaultCountry: account.defaultCountry, country }) };
  const pages = walkContacts({
    start: state.cursor!,
    pageSize: KOMMO_PAGE_LIMIT,
    maxPages: deps.maxPages,
    signal,
    fetchPage: ({ from, page }, s) =>
      client.contactsPage(creds, { page, updatedFrom: from > 0 ? from : undefined, order: 'updated_at' }, s),
  });

  for await (const page of pages) {
    signal.throwIfAborted();
    const known = new Set(state.boundaryIds);
    const boundary = state.cursor!.from;
    const records = page.contacts.map((c) => mapContact(c, mapperOpts));
    const fresh = records.filter((r) => !(r.kommo_updated_at === boundary && known.has(r.kommo_id)));
    let maxUpdatedAt = state.maxUpdatedAt ?? 0;
    for (const r of records) if (r.kommo_updated_at > maxUpdatedAt) maxUpdatedAt = r.kommo_updated_at;

    // Ids at the next window's boundary timestamp, so the overlap is not counted twice.
    const resume = page.resume;
    const boundaryIds =
      resume.from === boundary ? [...known] : [];
    for (const r of records) if (r.kommo_updated_at === resume.from && boundaryIds.length < MAX_BOUNDARY_IDS) boundaryIds.push(r.kommo_id);

    const processed = (state.processed ?? 0) + fresh.length;
    state = {
      ...state,
      cursor: resume,
      boundaryIds: [...new Set(boundaryIds)],
      maxUpdatedAt,
      processed,
      estimate: Math.max(state.estimate ?? 0, processed),
    };
    await db.transaction(async (tx) => {
      await upsertContacts(tx, {
        userId: account.userId,
        accountId: account.id,
        generation: state.generation!,
        contacts: records,
      });
      await saveProgress(tx, deps, account.id, state);
    });
    if (page.last) break;
  }

  if (state.mode === 'full') {
    await confirmUnseen({
      db,
      client,
      creds,
      account,
      generation: state.generation!,
      explicit: state.requested === 'full' || !account.syncFullAt,
      mapper: mapperOpts,
      signal,
    });
  }
  await finish(deps, account, state);
}

/** Progress, cursor and lease in one update; no row means another process owns the sync now. */
async function saveProgress(
  db: Db | Tx,
  deps: SyncJobDeps,
  accountId: number,
  state: SyncState,
  extra: { country?: string | null; generation?: number } = {},
) {
  const rows = await db
    .update(kommoAccounts)
    .set({
      syncState: state,
      syncProgressContacts: state.processed ?? 0,
      syncTotalContacts: state.mode === 'full' ? Math.max(state.estimate ?? 0, state.processed ?? 0) : sql`${kommoAccounts.syncTotalContacts}`,
      syncLeaseExpiresAt: sql`now() + make_interval(secs => ${deps.leaseMs / 1000})`,
      ...(extra.country !== undefined ? { country: extra.country } : {}),
      ...(extra.generation !== undefined ? { syncGeneration: extra.generation } : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(kommoAccounts.id, accountId), eq(kommoAccounts.syncLeaseOwner, deps.owner), eq(kommoAccounts.syncStatus, 'syncing')))
    .returning({ id: kommoAccounts.id });
  if (rows.length === 0) throw new LeaseLostError();
}

async function finish(deps: SyncJobDeps, account: AccountRow, state: SyncState) {
  const { db } = deps;
  await db.transaction(async (tx) => {
    if (state.mode === 'full') await removeUnseen(tx, { accountId: account.id, generation: state.generation! });
    const [{ n }] = await rowsOf<{ n: number }>(tx, sql`select count(*)::int as n from contacts where account_id = ${account.id}`);
    const total = Number(n);
    const rows = await tx
      .update(kommoAccounts)
      .set({
        syncStatus: 'synced',
        syncErrorMessage: null,
        syncTotalContacts: total,
        syncProgressContacts: total,
        lastSyncAt: new Date(),
        syncWatermark: Math.max(state.maxUpdatedAt ?? 0, account.syncWatermark ?? 0),
        syncGeneration: state.generation!,
        ...(state.mode === 'full' ? { syncFullAt: new Date() } : {}),
        syncState: null,
        syncLeaseOwner: null,
        syncLeaseExpiresAt: null,
        updatedAt: new Date(),
      })
      .where(and(eq(kommoAccounts.id, account.id), eq(kommoAccounts.syncLeaseOwner, deps.owner)))
      .returning({ id: kommoAccounts.id });
    if (rows.length === 0) throw new LeaseLostError();
  });
}
