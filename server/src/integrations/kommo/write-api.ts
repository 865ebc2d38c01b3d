import type { KommoTransport } from './client';
import { KommoError } from './errors';
import type { KommoCredentials } from './types';

/**
 * The Kommo API v4 calls the write-back makes (notes, tags, leads, pipelines), in Kommo's
 * documented shapes. Every call goes through the same transport, so the same per-account rate
 * limiter, as the contact sync: both share the account's requests per second.
 */

/** Kommo takes at most 250 entities in one add/update batch. */
export const KOMMO_BATCH_LIMIT = 250;
/** Ids per `filter[...][]` lookup: keeps the URL well under common request-line limits. */
export const KOMMO_IDS_PER_FILTER = 100;

/** Kommo's two closing stages, the same in every pipeline: "won" and "lost". */
export const KOMMO_WON_STATUS = 142;
export const KOMMO_LOST_STATUS = 143;

export interface NewNote {
  entityId: number;
  text: string;
  /** Echoed back by Kommo, so each created note is matched to what asked for it. */
  requestId: string;
}

export interface CreatedNote {
  id: number;
  entityId: number;
  requestId: string;
}

export interface ListedNote {
  id: number;
  entityId: number;
  text: string;
  createdAt: number;
}

export interface KommoStage {
  id: number;
  name: string;
  sort: number;
  type: number;
}

export interface KommoPipeline {
  id: number;
  name: string;
  isMain: boolean;
  isArchive: boolean;
  statuses: KommoStage[];
}

export interface KommoLead {
  id: number;
  statusId: number;
  pipelineId: number;
  updatedAt: number;
  closedAt: number | null;
}

export interface KommoWriteApi {
  /** POST /api/v4/contacts/notes: common notes, at most 250. Not repeatable: a lost answer fails as `unsure`. */
  addContactNotes(creds: KommoCredentials, notes: NewNote[], signal?: AbortSignal): Promise<CreatedNote[]>;
  /** GET /api/v4/contacts/notes by contact, common notes updated since `since` (unix seconds). */
  contactNotes(creds: KommoCredentials, contactIds: number[], since: number, signal?: AbortSignal): Promise<ListedNote[]>;
  /** PATCH /api/v4/contacts with `tags_to_add`: adds tags, keeps those the contact has. At most 250. */
  addContactTags(creds: KommoCredentials, items: Array<{ contactId: number; tags: string[] }>, signal?: AbortSignal): Promise<void>;
  /** GET /api/v4/contacts?with=leads: the leads linked to each contact (ids only). */
  contactLeads(creds: KommoCredentials, contactIds: number[], signal?: AbortSignal): Promise<Map<number, number[]>>;
  /** GET /api/v4/leads by id: status, pipeline and whether closed. */
  leadsByIds(creds: KommoCredentials, ids: number[], signal?: AbortSignal): Promise<KommoLead[]>;
  /** PATCH /api/v4/leads: moves each lead to a pipeline stage. At most 250. */
  moveLeads(creds: KommoCredentials, moves: Array<{ id: number; pipelineId: number; statusId: number }>, signal?: AbortSignal): Promise<void>;
  /** GET /api/v4/leads/pipelines with their stages. */
  pipelines(creds: KommoCredentials, signal?: AbortSignal): Promise<KommoPipeline[]>;
}

const isObject = (b: unknown): b is Record<string, unknown> => typeof b === 'object' && b !== null && !Array.isArray(b);
const embedded = (key: string) => (b: unknown) => isObject(b) && isObject(b._embedded) && Array.isArray(b._embedded[key]);

type Embedded<K extends string, T> = { _embedded: Record<K, T[]> };

function tooMany(n: number) {
  if (n > KOMMO_BATCH_LIMIT) throw new Error(`a Kommo batch holds at most ${KOMMO_BATCH_LIMIT} entities, got ${n}`);
}

export function createKommoWriteApi(transport: KommoTransport): KommoWriteApi {
  return {
    async addContactNotes(creds, notes, signal) {
      if (notes.length === 0) return [];
      tooMany(notes.length);
      const body = notes.map((n) => ({ entity_id: n.entityId, note_type: 'common', params: { text: n.text }, request_id: n.requestId }));
      const res = await transport.call<Embedded<'notes', { id: number; entity_id: number; request_id?: string | number }>>(creds, '/api/v4/contacts/notes', {
        method: 'POST',
        body,
        signal,
        valid: embedded('notes'),
        repeatable: false,
      });
      const created = res?._embedded.notes ?? [];
      return created.map((n, i) => ({ id: Number(n.id), entityId: Number(n.entity_id), requestId: String(n.request_id ?? notes[i]?.requestId ?? '') }));
    },

    async contactNotes(creds, contactIds, since, signal) {
      const out: ListedNote[] = [];
      for (let at = 0; at < contactIds.length; at += KOMMO_IDS_PER_FILTER) {
        const ids = contactIds.slice(at, at + KOMMO_IDS_PER_FILTER);
        for (let page = 1; page <= 100; page++) {
          const query = new URLSearchParams({ page: String(page), limit: String(KOMMO_BATCH_LIMIT), 'filter[note_type]': 'common' });
          query.set('filter[updated_at][from]', String(since));
          for (const id of ids) query.append('filter[entity_id][]', String(id));
          const res = await transport.call<Embedded<'notes', { id: number; entity_id: number; created_at?: number; params?: { text?: string } }>>(
            creds,
            '/api/v4/contacts/notes',
            { query, signal, valid: embedded('notes') },
          );
          const list = res?._embedded.notes ?? [];
          for (const n of list) out.push({ id: Number(n.id), entityId: Number(n.entity_id), text: String(n.params?.text ?? ''), createdAt: Number(n.created_at ?? 0) });
          if (list.length < KOMMO_BATCH_LIMIT) break;
        }
      }
      return out;
    },

    async addContactTags(creds, items, signal) {
      if (items.length === 0) return;
      tooMany(items.length);
      const body = items.map((i) => ({ id: i.contactId, tags_to_add: i.tags.map((name) => ({ name })) }));
      await transport.call(creds, '/api/v4/contacts', { method: 'PATCH', body, signal, valid: embedded('contacts') });
    },

    async contactLeads(creds, contactIds, signal) {
      const out = new Map<number, number[]>();
      for (let at = 0; at < contactIds.length; at += KOMMO_IDS_PER_FILTER) {
        const ids = contactIds.slice(at, at + KOMMO_IDS_PER_FILTER);
        const query = new URLSearchParams({ limit: String(KOMMO_BATCH_LIMIT), with: 'leads' });
        for (const id of ids) query.append('filter[id][]', String(id));
        const res = await transport.call<Embedded<'contacts', { id: number; _embedded?: { leads?: Array<{ id: number }> } }>>(creds, '/api/v4/contacts', {
          query,
          signal,
          valid: embedded('contacts'),
        });
        for (const c of res?._embedded.contacts ?? []) out.set(Number(c.id), (c._embedded?.leads ?? []).map((l) => Number(l.id)));
      }
      return out;
    },

    async leadsByIds(creds, ids, signal) {
      const out: KommoLead[] = [];
      for (let at = 0; at < ids.length; at += KOMMO_IDS_PER_FILTER) {
        const query = new URLSearchParams({ limit: String(KOMMO_BATCH_LIMIT) });
        for (const id of ids.slice(at, at + KOMMO_IDS_PER_FILTER)) query.append('filter[id][]', String(id));
        const res = await transport.call<Embedded<'leads', { id: number; status_id: number; pipeline_id: number; updated_at?: number; closed_at?: number | null }>>(
          creds,
          '/api/v4/leads',
          { query, signal, valid: embedded('leads') },
        );
        for (const l of res?._embedded.leads ?? []) {
          out.push({ id: Number(l.id), statusId: Number(l.status_id), pipelineId: Number(l.pipeline_id), updatedAt: Number(l.updated_at ?? 0), closedAt: l.closed_at ?? null });
        }
      }
      return out;
    },

    async moveLeads(creds, moves, signal) {
      if (moves.length === 0) return;
      tooMany(moves.length);
      const body = moves.map((m) => ({ id: m.id, pipeline_id: m.pipelineId, status_id: m.statusId }));
      await transport.call(creds, '/api/v4/leads', { method: 'PATCH', body, signal, valid: embedded('leads') });
    },

    async pipelines(creds, signal) {
      const res = await transport.call<
        Embedded<'pipelines', { id: number; name?: string; is_main?: boolean; is_archive?: boolean; _embedded?: { statuses?: Array<{ id: number; name?: string; sort?: number; type?: number }> } }>
      >(creds, '/api/v4/leads/pipelines', { signal, valid: embedded('pipelines') });
      if (!res) throw new KommoError('rejected', 'Kommo no devolvió los embudos de la cuenta.');
      return res._embedded.pipelines.map((p) => ({
        id: Number(p.id),
        name: String(p.name ?? ''),
        isMain: p.is_main === true,
        isArchive: p.is_archive === true,
        statuses: (p._embedded?.statuses ?? [])
          .map((s) => ({ id: Number(s.id), name: String(s.name ?? ''), sort: Number(s.sort ?? 0), type: Number(s.type ?? 0) }))
          .sort((a, b) => a.sort - b.sort),
      }));
    },
  };
}

/** An open lead is in neither closing stage. */
export const isOpenLead = (l: KommoLead) => l.statusId !== KOMMO_WON_STATUS && l.statusId !== KOMMO_LOST_STATUS;
