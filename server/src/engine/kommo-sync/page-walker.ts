import type { KommoContact } from '../../integrations/kommo/types';
import { SyncStopError } from './sync-errors';
import type { SyncCursor } from './sync-state';

export interface WalkedPage {
  contacts: KommoContact[];
  /** Where to restart from once this page is written (nothing before it is ever needed again). */
  resume: SyncCursor;
  last: boolean;
}

/** Null means Kommo answered 204: nothing at or past this page. */
export type FetchPage = (cursor: { from: number; page: number }, signal: AbortSignal) => Promise<KommoContact[] | null>;

/**
 * Pages one sync may read (40,000 × 250 = 10,000,000 contacts, ten times the largest account we
 * size for): a list that never ends is a fault, not an account.
 */
export const MAX_SYNC_PAGES = 40_000;

export const TOO_MANY_PAGES =
  'La sincronización se detuvo: Kommo siguió devolviendo páginas más allá del límite de contactos admitido.';

/**
 * Walks "updated_at >= from, oldest first" by keyset: each request starts at the last
 * updated_at seen (page 1), so an edit or a deletion in Kommo during the walk can never slide
 * an unread contact into a page already read. Only while more than a page of contacts share
 * one updated_at (bulk imports) does the walk page by number within that instant; the full sync
 * re-checks by id whatever it did not see before deleting it.
 *
 * Pages are requested one at a time; the next one is computed from the page in hand and
 * requested before the caller writes it, so Kommo and the database still overlap.
 * The list ends only on a 204: a short page is confirmed by asking for the page after it.
 */
export async function* walkContacts(opts: {
  fetchPage: FetchPage;
  start: SyncCursor;
  pageSize: number;
  signal: AbortSignal;
  maxPages?: number;
}): AsyncGenerator<WalkedPage> {
  const { fetchPage, pageSize, signal } = opts;
  const maxPages = opts.maxPages ?? MAX_SYNC_PAGES;
  const fetch = (c: SyncCursor) => {
    const p = fetchPage({ from: c.from, page: c.startPage }, signal);
    p.catch(() => undefined); // awaited below; a walk stopped early must not raise unhandled rejections
    return p;
  };

  let cursor = opts.start;
  let pending = fetch(cursor);
  for (let read = 1; ; read++) {
    const page = await pending;
    if (page === null) {
      yield { contacts: [], resume: cursor, last: true };
      return;
    }
    if (read >= maxPages) throw new SyncStopError(TOO_MANY_PAGES);
    let next: SyncCursor;
    const lastTs = page.length > 0 ? Number(page[page.length - 1].updated_at ?? 0) : cursor.from;
    if (page.length >= pageSize && lastTs > cursor.from) next = { from: lastTs, startPage: 1 };
    else next = { from: cursor.from, startPage: cursor.startPage + 1 }; // a full page of one instant, or a short page to confirm
    pending = fetch(next);
    yield { contacts: page, resume: next, last: false };
    cursor = next;
  }
}
