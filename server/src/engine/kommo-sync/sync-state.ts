/**
 * Where a sync is, saved with every page written so a restarted process resumes it.
 *
 * Contacts are walked by keyset on updated_at: a window asks pages startPage..startPage+K-1
 * of "updated_at >= from, oldest first", and the next window starts from the last updated_at
 * seen. Unlike plain page numbers, contacts deleted or edited during the walk never shift an
 * unread contact into an already-read page, so a full sync can safely delete what it did not see.
 */
export interface SyncCursor {
  /** Unix seconds; 0 means from the beginning. */
  from: number;
  startPage: number;
}

export interface SyncState {
  /**
   * Set by the API when the operator starts a sync, or 'recheck' when a new default country
   * re-reads the stored phones (phone-recheck.ts, which keeps its place in `recheck`).
   */
  requested?: 'full' | 'auto' | 'recheck';
  recheck?: RecheckState;
  mode?: 'full' | 'incremental';
  generation?: number;
  cursor?: SyncCursor;
  /** Kommo ids already counted at updated_at == cursor.from (a window overlaps the previous one there). */
  boundaryIds?: number[];
  maxUpdatedAt?: number;
  processed?: number;
  /** Contacts expected in total: the previous count, raised as the sync goes past it. */
  estimate?: number;
}

/** Where a re-check of the stored phones is; saved with every batch written. */
export interface RecheckState {
  /** The country the phones are read in (ISO code), or null for international numbers only. */
  country: string | null;
  /** The contacts are walked in id order: the last id done. */
  afterId: number;
  /** The account's sync status before the re-check, restored when it ends or is cancelled. */
  previousStatus: 'idle' | 'synced' | 'error';
}

/** Bound on remembered boundary ids: past it, progress may count a contact twice, nothing worse. */
export const MAX_BOUNDARY_IDS = 5_000;

export function parseSyncState(value: unknown): SyncState {
  return value && typeof value === 'object' ? (value as SyncState) : {};
}
