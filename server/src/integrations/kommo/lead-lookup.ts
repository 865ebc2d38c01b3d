import type { KommoTransport } from './client';
import type { KommoContact, KommoContactField, KommoCredentials } from './types';
import { KOMMO_IDS_PER_LOOKUP } from './client';

/** What an automatic campaign needs of a lead at its event's due time. */
export interface LookedUpLead {
  id: number;
  pipelineId: number;
  statusId: number;
  name: string;
  price: number | null;
  /** The lead's custom fields by name (several values joined by ", "). */
  customFields: Record<string, string>;
  /** The main contact's Kommo id; null when the lead has no contact marked main. */
  mainContactId: number | null;
}

export interface KommoLeadLookup {
  /** GET /api/v4/leads?filter[id][]=…&with=contacts, 100 ids a request; leads Kommo no longer has are absent. */
  leadsWithContacts(creds: KommoCredentials, ids: number[], signal?: AbortSignal): Promise<LookedUpLead[]>;
  /** The contacts of `ids` Kommo still has (the fallback when a main contact is not synced yet). */
  contactsByIds?(creds: KommoCredentials, ids: number[], signal?: AbortSignal): Promise<KommoContact[]>;
}

interface RawLead {
  id: number;
  name?: string | null;
  price?: number | null;
  status_id: number;
  pipeline_id: number;
  custom_fields_values?: KommoContactField[] | null;
  _embedded?: { contacts?: Array<{ id: number; is_main?: boolean }> | null } | null;
}

const isObject = (b: unknown): b is Record<string, unknown> => typeof b === 'object' && b !== null && !Array.isArray(b);
const hasLeads = (b: unknown) => isObject(b) && isObject(b._embedded) && Array.isArray(b._embedded.leads);

/**
 * The lead look-up of automatic campaigns. Asks the account's limiter for a high-priority turn:
 * a message waits on this answer, while the sync and the write-back can wait a little more (a
 * limiter without priorities serves it in turn).
 */
export function createKommoLeadLookup(transport: KommoTransport, contacts?: KommoLeadLookup['contactsByIds']): KommoLeadLookup {
  return {
    async leadsWithContacts(creds, ids, signal) {
      const out: LookedUpLead[] = [];
      const unique = [...new Set(ids)];
      for (let at = 0; at < unique.length; at += KOMMO_IDS_PER_LOOKUP) {
        const query = new URLSearchParams({ limit: String(KOMMO_IDS_PER_LOOKUP), with: 'contacts' });
        for (const id of unique.slice(at, at + KOMMO_IDS_PER_LOOKUP)) query.append('filter[id][]', String(id));
        const res = await transport.call<{ _embedded: { leads: RawLead[] } }>(creds, '/api/v4/leads', { query, signal, valid: hasLeads, priority: 'high' });
        for (const l of res?._embedded.leads ?? []) out.push(parseLead(l));
      }
      return out;
    },
    contactsByIds: contacts,
  };
}

/** Kommo's lead shape: the main contact is the embedded contact with `is_main`. */
export function parseLead(l: RawLead): LookedUpLead {
  const main = (l._embedded?.contacts ?? []).find((c) => c.is_main) ?? null;
  const customFields: Record<string, string> = {};
  for (const f of l.custom_fields_values ?? []) {
    const name = f.field_name ?? String(f.field_id);
    const values = (f.values ?? []).map((v) => v.value).filter((v) => v !== null && v !== undefined && v !== '');
    if (values.length) customFields[name] = values.map(String).join(', ');
  }
  const price = l.price === null || l.price === undefined || !Number.isFinite(Number(l.price)) ? null : Number(l.price);
  return {
    id: Number(l.id),
    pipelineId: Number(l.pipeline_id),
    statusId: Number(l.status_id),
    name: String(l.name ?? ''),
    price,
    customFields,
    mainContactId: main ? Number(main.id) : null,
  };
}
