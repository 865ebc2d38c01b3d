// Every accepted send, kept as parallel arrays (no object per message) because a benchmark may send
// a few hundred thousand messages. The inspection helpers build their answers on demand.
import { insertSorted, maxInWindow } from '../shared/sliding-window';
import type { RecordedMessage } from './types';

function pushTo(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export class MessageLog {
  /** Random per simulator so wamids never repeat across runs. */
  private readonly prefix = `wamid.HBgM${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
  private at: number[] = [];
  private numberIdx: number[] = [];
  private to: string[] = [];
  private templateIdx: number[] = [];
  private biz: (string | null)[] = [];
  private components: string[] = [];
  private seq = 0;

  /** Interned phone number ids and (template, language) pairs. */
  private numbers: string[] = [];
  private numberIndex = new Map<string, number>();
  private templates: Array<{ template: string; language: string }> = [];
  private templateIndex = new Map<string, number>();
  /** Accept times per phone number id, for timestamps() and maxInAnyWindow(). */
  private times = new Map<string, number[]>();

  get size(): number {
    return this.at.length;
  }

  private intern(phoneNumberId: string): number {
    let i = this.numberIndex.get(phoneNumberId);
    if (i === undefined) {
      i = this.numbers.push(phoneNumberId) - 1;
      this.numberIndex.set(phoneNumberId, i);
    }
    return i;
  }

  private internTemplate(template: string, language: string): number {
    const key = `${template}\u0000${language}`;
    let i = this.templateIndex.get(key);
    if (i === undefined) {
      i = this.templates.push({ template, language }) - 1;
      this.templateIndex.set(key, i);
    }
    return i;
  }

  /** Stores an accepted message and returns its wamid. */
  record(m: Omit<RecordedMessage, 'wamid' | 'components'> & { componentsJson: string }): string {
    const wamid = `${this.prefix}${(this.seq++).toString(36).toUpperCase().padStart(8, '0')}`;
    this.at.push(m.at);
    this.numberIdx.push(this.intern(m.phoneNumberId));
    this.to.push(m.to);
    this.templateIdx.push(this.internTemplate(m.template, m.language));
    this.biz.push(m.bizOpaque);
    this.components.push(m.componentsJson);
    let times = this.times.get(m.phoneNumberId);
    if (!times) {
      times = [];
      this.times.set(m.phoneNumberId, times);
    }
    // Kept in time order: a send is timed at its arrival, and may be accepted after a later one.
    insertSorted(times, m.at);
    return wamid;
  }

  /** Accepted sends of one template (name and language) between two times (ms), for the template comparison. */
  sendsOf(template: string, language: string, fromMs: number, toMs: number): number {
    const idx = this.templateIndex.get(`${template}\u0000${language}`);
    if (idx === undefined) return 0;
    let n = 0;
    for (let i = 0; i < this.at.length; i++) if (this.templateIdx[i] === idx && this.at[i] >= fromMs && this.at[i] <= toMs) n++;
    return n;
  }

  private wamidAt(i: number): string {
    // Messages are recorded in wamid order; reset() restarts the arrays but not the sequence.
    return `${this.prefix}${(this.seq - this.at.length + i).toString(36).toUpperCase().padStart(8, '0')}`;
  }

  messageAt(i: number): RecordedMessage {
    const t = this.templates[this.templateIdx[i]];
    return {
      wamid: this.wamidAt(i),
      phoneNumberId: this.numbers[this.numberIdx[i]],
      to: this.to[i],
      template: t.template,
      language: t.language,
      components: JSON.parse(this.components[i]),
      bizOpaque: this.biz[i],
      at: this.at[i],
    };
  }

  /** The message of a wamid this simulator sent (still in the log), or null. */
  byWamid(wamid: string): RecordedMessage | null {
    if (!wamid.startsWith(this.prefix)) return null;
    const n = Number.parseInt(wamid.slice(this.prefix.length), 36);
    const i = n - (this.seq - this.at.length);
    return Number.isInteger(i) && i >= 0 && i < this.at.length ? this.messageAt(i) : null;
  }

  /** Messages matching the filter, oldest first; only the last `limit` when given. */
  messages(filter: { phoneNumberId?: string; to?: string; limit?: number } = {}): RecordedMessage[] {
    const numberIdx = filter.phoneNumberId === undefined ? undefined : this.numberIndex.get(filter.phoneNumberId);
    if (filter.phoneNumberId !== undefined && numberIdx === undefined) return [];
    const picked: number[] = [];
    const limit = filter.limit ?? Infinity;
    for (let i = this.at.length - 1; i >= 0 && picked.length < limit; i--) {
      if (numberIdx !== undefined && this.numberIdx[i] !== numberIdx) continue;
      if (filter.to !== undefined && this.to[i] !== filter.to) continue;
      picked.push(i);
    }
    return picked.reverse().map((i) => this.messageAt(i));
  }

  countsByRecipient(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const to of this.to) counts.set(to, (counts.get(to) ?? 0) + 1);
    return counts;
  }

  /** Sends that repeat a (number, recipient, template) or a biz_opaque_callback_data. */
  duplicates(): Array<{ to: string; bizOpaque: string | null; count: number }> {
    const byKey = new Map<string, number[]>();
    const byBiz = new Map<string, number[]>();
    for (let i = 0; i < this.at.length; i++) {
      const key = `${this.numberIdx[i]}|${this.to[i]}|${this.templateIdx[i]}`;
      pushTo(byKey, key, i);
      const biz = this.biz[i];
      if (biz !== null) pushTo(byBiz, biz, i);
    }
    const out: Array<{ to: string; bizOpaque: string | null; count: number }> = [];
    const reported = new Set<string>();
    for (const [key, idx] of byKey) {
      if (idx.length < 2) continue;
      reported.add(key);
      const biz = this.biz[idx[0]];
      out.push({ to: this.to[idx[0]], bizOpaque: idx.every((i) => this.biz[i] === biz) ? biz : null, count: idx.length });
    }
    for (const [biz, idx] of byBiz) {
      if (idx.length < 2) continue;
      const keys = new Set(idx.map((i) => `${this.numberIdx[i]}|${this.to[i]}|${this.templateIdx[i]}`));
      if (keys.size === 1 && reported.has([...keys][0])) continue; // already reported above
      out.push({ to: this.to[idx[0]], bizOpaque: biz, count: idx.length });
    }
    return out;
  }

  timestamps(phoneNumberId: string): number[] {
    return [...(this.times.get(phoneNumberId) ?? [])];
  }

  maxInAnyWindow(phoneNumberId: string, windowMs = 1000): number {
    return maxInWindow(this.times.get(phoneNumberId) ?? [], windowMs);
  }

  perNumber(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, times] of this.times) out[id] = times.length;
    return out;
  }

  clear(): void {
    this.at = [];
    this.numberIdx = [];
    this.to = [];
    this.templateIdx = [];
    this.biz = [];
    this.components = [];
    this.times.clear();
  }
}
