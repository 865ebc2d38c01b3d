// One simulated Kommo account. Contacts are never stored: id n is contactAt(seed, n - 1), plus
// overlays for contacts the test updated, deleted or added.
import { contactAt, FIELD_NAMES, hashSeed, type FieldName } from '../data/index';
import { buildFields, type AccountFields } from './fields';
import { BaseRange, lowerBound, mergedFrom, mergedSlice, type Compare } from './ordered-merge';
import { TagCatalog } from './tags';

export interface ContactPatch {
  name?: string;
  first_name?: string;
  last_name?: string;
  phone?: string | null;
  email?: string | null;
  tags?: string[];
  custom?: Record<string, string | null>;
}

/** A contact as the account currently holds it (generated values with overlays applied). */
export interface ResolvedContact {
  id: number;
  name: string;
  firstName: string;
  lastName: string;
  phones: Array<{ value: string; enumCode: string }>;
  email: string | null;
  tags: string[];
  custom: Record<FieldName, string | null>;
  createdAt: number;
  updatedAt: number;
  responsibleUserId: number;
}

export interface ListQuery {
  from?: number;
  to?: number;
  orderBy: 'id' | 'updated_at';
  desc: boolean;
  query?: string;
  ids?: number[];
}

const SECONDS_PER_DAY = 86_400;

export function accountIdFor(subdomain: string): number {
  let h = 0;
  for (let i = 0; i < subdomain.length; i++) h = hashSeed(h, subdomain.charCodeAt(i));
  return 30_000_000 + (h % 1_000_000);
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export class KommoAccount {
  readonly id: number;
  readonly currentUserId: number;
  readonly userIds: number[];
  readonly createdAt: number;
  readonly fields: AccountFields;
  readonly tags: TagCatalog;

  private readonly generated: number;
  /** updated_at of generated contact 1; two generated contacts share each second after it. */
  private readonly generatedBaseTs: number;
  private addedBatches: Array<{ firstId: number; ts: number }> = [];
  private maxId: number;
  private overlays = new Map<number, { patch: ContactPatch; updatedAt: number }>();
  private deleted = new Set<number>();
  /** Contacts added with explicit values (addWith): they have none of the generated leads. */
  private handMade = new Set<number>();
  /** Edits of deleted contacts, kept so that a restored contact comes back as it was. */
  private deletedPatches = new Map<number, ContactPatch>();
  /** Sorted ids whose computed position no longer holds (updated or deleted). */
  private exceptions: number[] = [];
  /** Live updated ids, sorted by (updatedAt, id). */
  private updatedLog: number[] = [];
  private lastStamp = 0;

  constructor(
    readonly subdomain: string,
    public token: string,
    readonly seed: number,
    contacts: number,
  ) {
    this.id = accountIdFor(subdomain);
    this.currentUserId = 8_000_000 + (this.id % 1_000_000);
    this.userIds = [this.currentUserId, this.currentUserId + 1, this.currentUserId + 2];
    this.createdAt = nowSeconds();
    this.lastStamp = this.createdAt;
    this.generated = contacts;
    this.maxId = contacts;
    this.generatedBaseTs = this.createdAt - Math.ceil(contacts / 2) - 60;
    this.fields = buildFields(this.id);
    this.tags = new TagCatalog(seed, this.id);
  }

  /** Contacts currently alive. */
  get size(): number {
    return this.maxId - this.deleted.size;
  }

  exists(id: number): boolean {
    return Number.isInteger(id) && id >= 1 && id <= this.maxId && !this.deleted.has(id);
  }

  /** A timestamp for a change made now, never earlier than the previous one. */
  private stamp(): number {
    this.lastStamp = Math.max(this.lastStamp, nowSeconds());
    return this.lastStamp;
  }

  private baseTs(id: number): number {
    if (id <= this.generated) return this.generatedBaseTs + Math.floor((id - 1) / 2);
    const batches = this.addedBatches;
    let lo = 0;
    let hi = batches.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (batches[mid].firstId <= id) lo = mid;
      else hi = mid - 1;
    }
    return batches[lo].ts;
  }

  updatedAtOf(id: number): number {
    return this.overlays.get(id)?.updatedAt ?? this.baseTs(id);
  }

  private createdAtOf(id: number): number {
    if (id > this.generated) return this.baseTs(id);
    return this.baseTs(id) - (hashSeed(this.seed, id, 9) % (400 * SECONDS_PER_DAY));
  }

  private markException(id: number): void {
    const at = lowerBound(this.exceptions, id);
    if (this.exceptions[at] !== id) this.exceptions.splice(at, 0, id);
  }

  private removeFromLog(id: number): void {
    const at = this.updatedLog.indexOf(id);
    if (at >= 0) this.updatedLog.splice(at, 1);
  }

  update(id: number, patch: ContactPatch): void {
    if (!this.exists(id)) throw new Error(`contact ${id} does not exist in ${this.subdomain}`);
    const previous = this.overlays.get(id)?.patch ?? {};
    const merged: ContactPatch = { ...previous, ...patch };
    if (patch.custom) merged.custom = { ...previous.custom, ...patch.custom };
    for (const tag of patch.tags ?? []) this.tags.ensure(tag);
    const updatedAt = this.stamp();
    this.overlays.set(id, { patch: merged, updatedAt });
    this.markException(id);
    this.removeFromLog(id);
    // Keep (updatedAt, id) order: the stamp is the newest, so only equal stamps can need a move.
    const log = this.updatedLog;
    let at = log.length;
    while (at > 0 && this.updatedAtOf(log[at - 1]) === updatedAt && log[at - 1] > id) at--;
    log.splice(at, 0, id);
  }

  delete(id: number): void {
    if (!this.exists(id)) throw new Error(`contact ${id} does not exist in ${this.subdomain}`);
    this.deleted.add(id);
    const overlay = this.overlays.get(id);
    if (overlay) this.deletedPatches.set(id, overlay.patch);
    this.overlays.delete(id);
    this.markException(id);
    this.removeFromLog(id);
  }

  /** Adds `n` generated contacts after the last id; returns the first new id. */
  add(n: number): number {
    if (!Number.isInteger(n) || n < 1) throw new Error('n must be a positive integer');
    const firstId = this.maxId + 1;
    this.addedBatches.push({ firstId, ts: this.stamp() });
    this.maxId += n;
    return firstId;
  }

  /** Adds one contact with the given values (not the generator's); returns its id. */
  addWith(patch: ContactPatch): number {
    const id = this.add(1);
    this.update(id, patch);
    this.handMade.add(id);
    return id;
  }

  isHandMade(id: number): boolean {
    return this.handMade.has(id);
  }

  isDeleted(id: number): boolean {
    return this.deleted.has(id);
  }

  /** Brings a deleted contact back with the values it had; updated_at = now. */
  restore(id: number): void {
    if (!this.deleted.has(id)) throw new Error(`contact ${id} is not deleted in ${this.subdomain}`);
    this.deleted.delete(id);
    const patch = this.deletedPatches.get(id) ?? {};
    this.deletedPatches.delete(id);
    this.update(id, patch);
  }

  resolve(id: number): ResolvedContact {
    const g = contactAt(this.seed, id - 1);
    const overlay = this.overlays.get(id);
    const p = overlay?.patch ?? {};
    const custom = { ...g.custom } as Record<FieldName, string | null>;
    for (const name of FIELD_NAMES) if (p.custom && name in p.custom) custom[name] = p.custom[name] ?? null;
    let phones: ResolvedContact['phones'] = g.phones;
    if (p.phone !== undefined) phones = p.phone === null ? [] : [{ value: p.phone, enumCode: 'MOB' }];
    return {
      id,
      name: p.name ?? g.name,
      firstName: p.first_name ?? g.firstName,
      lastName: p.last_name ?? g.lastName,
      phones,
      email: p.email !== undefined ? p.email : g.email,
      tags: p.tags ?? g.tags,
      custom,
      createdAt: this.createdAtOf(id),
      updatedAt: overlay?.updatedAt ?? this.baseTs(id),
      responsibleUserId: this.userIds[id % this.userIds.length],
    };
  }

  /** One page of contact ids for a list request. */
  list(q: ListQuery, offset: number, limit: number): number[] {
    const cmp: Compare = q.orderBy === 'id'
      ? (x, y) => x - y
      : (x, y) => this.updatedAtOf(x) - this.updatedAtOf(y) || x - y;
    const matches = q.query ? queryMatcher(q.query) : null;
    const keep = (id: number) => {
      const ts = this.updatedAtOf(id);
      if (q.from !== undefined && ts < q.from) return false;
      if (q.to !== undefined && ts > q.to) return false;
      return matches === null || matches(this.resolve(id));
    };

    if (q.ids) {
      const ids = [...new Set(q.ids)].filter((id) => this.exists(id) && keep(id)).sort(cmp);
      if (q.desc) ids.reverse();
      return ids.slice(offset, offset + limit);
    }

    const [base, extra] = this.sequence(q, cmp);
    if (matches === null) {
      const total = base.length + extra.length;
      if (!q.desc) return mergedSlice(base, extra, cmp, offset, offset + limit);
      const end = total - offset;
      return mergedSlice(base, extra, cmp, Math.max(0, end - limit), end).reverse();
    }
    // A text search has to look at the contacts themselves: scan in order, stop when the page is full.
    const found: number[] = [];
    for (const id of mergedFrom(base, extra, cmp, 0)) {
      if (!matches(this.resolve(id))) continue;
      found.push(id);
      if (!q.desc && found.length >= offset + limit) break;
    }
    if (q.desc) found.reverse();
    return found.slice(offset, offset + limit);
  }

  /** The two ordered sides of the list: computed contacts in range, and updated ones. */
  private sequence(q: ListQuery, cmp: Compare): [BaseRange, number[]] {
    const from = q.from ?? -Infinity;
    const to = q.to ?? Infinity;
    // Computed timestamps rise with the id, so the range is found by binary search on ids.
    const firstId = this.firstIdWith((id) => this.baseTs(id) >= from);
    const lastId = this.firstIdWith((id) => this.baseTs(id) > to) - 1;
    const base = new BaseRange(firstId, lastId, this.exceptions);
    const log = this.updatedLog;
    const lo = this.firstLogIndexWith((id) => this.updatedAtOf(id) >= from);
    const hi = this.firstLogIndexWith((id) => this.updatedAtOf(id) > to);
    let extra = log.slice(lo, Math.max(lo, hi));
    if (q.orderBy === 'id') extra = extra.sort(cmp);
    return [base, extra];
  }

  /** Smallest id in 1..maxId for which `pred` holds (pred is monotonic), or maxId + 1. */
  private firstIdWith(pred: (id: number) => boolean): number {
    let lo = 1;
    let hi = this.maxId + 1;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (pred(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private firstLogIndexWith(pred: (id: number) => boolean): number {
    let lo = 0;
    let hi = this.updatedLog.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pred(this.updatedLog[mid])) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** Substring search over name, phones (also digits only) and email, case-insensitive. */
function queryMatcher(query: string): (c: ResolvedContact) => boolean {
  const needle = query.trim().toLowerCase();
  const digitsNeedle = needle.replace(/\D/g, '');
  return (c) => {
    if (c.name.toLowerCase().includes(needle)) return true;
    if (c.email?.toLowerCase().includes(needle)) return true;
    for (const p of c.phones) {
      if (p.value.toLowerCase().includes(needle)) return true;
      if (digitsNeedle.length >= 3 && p.value.replace(/\D/g, '').includes(digitsNeedle)) return true;
    }
    return false;
  };
}
