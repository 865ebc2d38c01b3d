import type { KommoContact } from '../../integrations/kommo/types';
import type { SyncCursor } from './sync-state';

export interface WalkedPage {
  contacts: KommoContact[];
  /** Where to restart from once this page is written (nothing before it is ever needed again). */
  resume: SyncCursor;
  last: boolean;
}

export type FetchPage = (cursor: { from: number; page: number }, signal: AbortSignal) => Promise<KommoContact[] | null>;

/**
 * Yields pages in order while the next window is already being fetched, so requests flow at
 * the rate limit while the database writes. Memory holds at most two windows of pages.
 */
export async function* walkContacts(opts: {
  fetchPage: FetchPage;
  start: SyncCursor;
  pageSize: number;
  windowPages: number;
  signal: AbortSignal;
}): AsyncGenerator<WalkedPage> {
  const { fetchPage, pageSize, windowPages, signal } = opts;

  const fetchWindow = (cursor: SyncCursor) =>
    Array.from({ length: windowPages }, (_, i) => {
      const p = fetchPage({ from: cursor.from, page: cursor.startPage + i }, signal);
      p.catch(() => undefined); // awaited below; a window dropped early must not raise unhandled rejections
      return p;
    });

  let cursor: SyncCursor | null = opts.start;
  let pending = fetchWindow(cursor);
  while (cursor) {
    const window = pending;
    const current: SyncCursor = cursor;
    let next: SyncCursor | null = null;
    let prefetched = false;
    for (let i = 0; i < window.length; i++) {
      const page = await window[i];
      const contacts = page ?? [];
      const full = page !== null && contacts.length >= pageSize;
      const isLastOfWindow = i === window.length - 1;
      if (full && isLastOfWindow) {
        const lastTs = Number(contacts[contacts.length - 1].updated_at ?? 0);
        next = lastTs > current.from ? { from: lastTs, startPage: 1 } : { from: current.from, startPage: current.startPage + windowPages };
        // Start the next window before the caller writes this page.
        pending = fetchWindow(next);
        prefetched = true;
      }
      if (!full) {
        // The end: later pages of this window are past it (204) and are ignored.
        await Promise.allSettled(window.slice(i + 1));
        yield { contacts, resume: current, last: true };
        return;
      }
      yield { contacts, resume: isLastOfWindow && next ? next : current, last: false };
    }
    cursor = prefetched ? next : null;
  }
}
