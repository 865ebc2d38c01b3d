// The account's event feed, as GET /api/v4/events serves it: every lead and contact change the
// simulator makes is logged here with the same second its webhook carries, so a catch-up that
// reads the feed sees exactly what the webhooks said (or would have said, had they arrived).

export type EventEntity = 'lead' | 'contact';

export interface KommoEvent {
  /** Kommo's event ids are strings (26 characters). */
  id: string;
  type: string;
  entityId: number;
  entityType: EventEntity;
  createdBy: number;
  /** Unix seconds. */
  createdAt: number;
  valueAfter: unknown[];
  valueBefore: unknown[];
}

export interface EventQuery {
  ids?: string[];
  types?: string[];
  entities?: string[];
  entityIds?: number[];
  createdBy?: number[];
  from?: number;
  to?: number;
}

/** The event types the simulator writes (a subset of Kommo's list). */
export const EVENT_TYPES = [
  'lead_added',
  'lead_status_changed',
  'contact_added',
  'contact_deleted',
  'contact_restored',
  'sale_field_changed',
  'name_field_changed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export class EventLog {
  /** Oldest first; the list answers newest first. */
  private readonly events: KommoEvent[] = [];
  private seq = 0;

  get size(): number {
    return this.events.length;
  }

  add(e: Omit<KommoEvent, 'id'>): KommoEvent {
    // Unique, sortable by time, and shaped like Kommo's 26-character ids.
    const id = `01${e.createdAt.toString(36).padStart(7, '0')}${(++this.seq).toString(36).padStart(17, '0')}`;
    const event = { id, ...e };
    this.events.push(event);
    return event;
  }

  byId(id: string): KommoEvent | undefined {
    return this.events.find((e) => e.id === id);
  }

  /** Newest first (ties: the later change first), filtered. */
  query(q: EventQuery): KommoEvent[] {
    const out: KommoEvent[] = [];
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i];
      if (q.from !== undefined && e.createdAt < q.from) continue;
      if (q.to !== undefined && e.createdAt > q.to) continue;
      if (q.types && !q.types.includes(e.type)) continue;
      if (q.entities && !q.entities.includes(e.entityType)) continue;
      if (q.entityIds && !q.entityIds.includes(e.entityId)) continue;
      if (q.createdBy && !q.createdBy.includes(e.createdBy)) continue;
      if (q.ids && !q.ids.includes(e.id)) continue;
      out.push(e);
    }
    return out;
  }

  all(): KommoEvent[] {
    return [...this.events];
  }
}

const ENTITY_PATH: Record<EventEntity, string> = { lead: 'leads', contact: 'contacts' };

export function eventJson(e: KommoEvent, accountId: number, self: string) {
  const entityHref = `${self}/api/v4/${ENTITY_PATH[e.entityType]}/${e.entityId}`;
  return {
    id: e.id,
    type: e.type,
    entity_id: e.entityId,
    entity_type: e.entityType,
    created_by: e.createdBy,
    created_at: e.createdAt,
    value_after: e.valueAfter,
    value_before: e.valueBefore,
    account_id: accountId,
    _links: { self: { href: `${self}/api/v4/events/${e.id}` } },
    _embedded: { entity: { id: e.entityId, _links: { self: { href: entityHref } } } },
  };
}
