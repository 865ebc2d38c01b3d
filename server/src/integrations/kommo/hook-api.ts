import type { KommoTransport } from './client';
import { KOMMO_PAGE_LIMIT } from './client';
import { KommoError } from './errors';
import type { KommoContact, KommoCredentials } from './types';

/**
 * The Kommo API v4 calls that keep an account current between full syncs: its webhook
 * subscription (`/api/v4/webhooks`), the events log (`/api/v4/events`) and the contacts changed
 * since a time. Every call goes through the shared transport, so through the account's rate
 * limiter, taking turns with the sync, the write-back and the automation's look-ups.
 */

/** Kommo's events list takes at most 100 per page. */
export const KOMMO_EVENTS_PAGE_LIMIT = 100;

export type HookSetting = 'add_contact' | 'update_contact' | 'delete_contact' | 'status_lead' | 'add_lead';

export interface KommoHook {
  id: number | null;
  destination: string;
  settings: string[];
  disabled: boolean;
}

/** One entry of Kommo's events log, as the catch-up keeps it. */
export interface KommoEvent {
  id: string;
  type: string;
  entityId: number;
  entityType: string;
  createdAt: number;
  /** `value_after[0].lead_status` of a stage change or a new lead. */
  statusAfter: { id: number; pipelineId: number } | null;
  statusBefore: { id: number; pipelineId: number } | null;
}

export interface KommoHookApi {
  /** POST /api/v4/webhooks: subscribes `destination` to `settings` (Kommo replaces an existing subscription of it). */
  subscribeHooks(creds: KommoCredentials, destination: string, settings: HookSetting[], signal?: AbortSignal): Promise<KommoHook>;
  /** GET /api/v4/webhooks?filter[destination]=…: the subscriptions of that address. */
  listHooks(creds: KommoCredentials, destination: string, signal?: AbortSignal): Promise<KommoHook[]>;
  /** DELETE /api/v4/webhooks with the destination. */
  unsubscribeHooks(creds: KommoCredentials, destination: string, signal?: AbortSignal): Promise<void>;
  /** GET /api/v4/events: one page of events of `types` created at or after `from` (unix s); null past the last page (204). */
  eventsPage(
    creds: KommoCredentials,
    q: { types: string[]; from: number; page: number; limit?: number },
    signal?: AbortSignal,
  ): Promise<KommoEvent[] | null>;
  /** GET /api/v4/contacts updated at or after `from` (unix s), oldest first; null past the last page (204). */
  contactsUpdatedSince(creds: KommoCredentials, q: { from: number; page: number; limit?: number }, signal?: AbortSignal): Promise<KommoContact[] | null>;
}

const isObject = (b: unknown): b is Record<string, unknown> => typeof b === 'object' && b !== null && !Array.isArray(b);
const embedded = (key: string) => (b: unknown) => isObject(b) && isObject(b._embedded) && Array.isArray(b._embedded[key]);

interface RawHook {
  id?: unknown;
  destination?: unknown;
  settings?: unknown;
  disabled?: unknown;
}

function toHook(h: RawHook): KommoHook {
  return {
    id: h.id === undefined || h.id === null ? null : Number(h.id),
    destination: String(h.destination ?? ''),
    settings: Array.isArray(h.settings) ? h.settings.map(String) : [],
    disabled: h.disabled === true,
  };
}

interface RawEvent {
  id?: unknown;
  type?: unknown;
  entity_id?: unknown;
  entity_type?: unknown;
  created_at?: unknown;
  value_after?: unknown;
  value_before?: unknown;
}

/** `[{ lead_status: { id, pipeline_id } }]`, Kommo's shape of a stage in an event. */
function leadStatus(v: unknown): { id: number; pipelineId: number } | null {
  if (!Array.isArray(v)) return null;
  for (const item of v) {
    const s = isObject(item) && isObject(item.lead_status) ? item.lead_status : null;
    if (!s) continue;
    const id = Number(s.id);
    const pipelineId = Number(s.pipeline_id);
    if (Number.isSafeInteger(id) && id > 0 && Number.isSafeInteger(pipelineId) && pipelineId > 0) return { id, pipelineId };
  }
  return null;
}

function toEvent(e: RawEvent): KommoEvent | null {
  const entityId = Number(e.entity_id);
  const createdAt = Number(e.created_at);
  if (typeof e.id !== 'string' && typeof e.id !== 'number') return null;
  if (!Number.isSafeInteger(entityId) || entityId <= 0 || !Number.isSafeInteger(createdAt) || createdAt < 0) return null;
  return {
    id: String(e.id),
    type: String(e.type ?? ''),
    entityId,
    entityType: String(e.entity_type ?? ''),
    createdAt,
    statusAfter: leadStatus(e.value_after),
    statusBefore: leadStatus(e.value_before),
  };
}

export function createKommoHookApi(transport: KommoTransport): KommoHookApi {
  return {
    async subscribeHooks(creds, destination, settings, signal) {
      const res = await transport.call<RawHook>(creds, '/api/v4/webhooks', {
        method: 'POST',
        body: { destination, settings, sort: 10 },
        signal,
        valid: (b) => isObject(b),
      });
      if (!res) throw new KommoError('rejected', 'Kommo no confirmó la suscripción a los webhooks.');
      return toHook({ ...res, destination: res.destination ?? destination, settings: res.settings ?? settings });
    },

    async listHooks(creds, destination, signal) {
      const query = new URLSearchParams({ 'filter[destination]': destination });
      const res = await transport.call<{ _embedded: { webhooks: RawHook[] } }>(creds, '/api/v4/webhooks', { query, signal, valid: embedded('webhooks') });
      return (res?._embedded.webhooks ?? []).map(toHook).filter((h) => h.destination === destination);
    },

    async unsubscribeHooks(creds, destination, signal) {
      // Answered 204; removing what is already gone is fine to repeat.
      await transport.call(creds, '/api/v4/webhooks', { method: 'DELETE', body: { destination }, signal, valid: () => true });
    },

    async eventsPage(creds, q, signal) {
      const limit = Math.min(q.limit ?? KOMMO_EVENTS_PAGE_LIMIT, KOMMO_EVENTS_PAGE_LIMIT);
      const query = new URLSearchParams({ page: String(q.page), limit: String(limit) });
      query.set('filter[type]', q.types.join(','));
      query.set('filter[created_at][from]', String(q.from));
      const res = await transport.call<{ _embedded: { events: RawEvent[] } }>(creds, '/api/v4/events', { query, signal, valid: embedded('events') });
      if (!res) return null;
      return res._embedded.events.flatMap((e) => {
        const ev = isObject(e) ? toEvent(e) : null;
        return ev ? [ev] : [];
      });
    },

    async contactsUpdatedSince(creds, q, signal) {
      const query = new URLSearchParams({ page: String(q.page), limit: String(q.limit ?? KOMMO_PAGE_LIMIT) });
      query.set('filter[updated_at][from]', String(q.from));
      query.set('order[updated_at]', 'asc');
      const res = await transport.call<{ _embedded: { contacts: KommoContact[] } }>(creds, '/api/v4/contacts', {
        query,
        signal,
        valid: embedded('contacts'),
      });
      return res ? res._embedded.contacts : null;
    },
  };
}
