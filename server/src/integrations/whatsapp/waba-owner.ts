import type { GraphClient } from './graph-client';

/**
 * The business portfolio that owns a WABA: `GET /{waba_id}?fields=owner_business_info`
 * answers `{ "id": "<WABA>", "owner_business_info": { "id": "<portfolio>", "name": "…" } }`.
 * Null when Meta leaves it out or refuses: the caller falls back to the WABA.
 */
export async function getWabaOwnerId(client: GraphClient, token: string, wabaId: string): Promise<string | null> {
  try {
    const res = await client.call<{ owner_business_info?: { id?: unknown } }>({
      method: 'GET',
      path: `/${encodeURIComponent(wabaId)}`,
      token,
      query: { fields: 'owner_business_info' },
    });
    const id = res?.owner_business_info?.id;
    return typeof id === 'string' && id ? id : typeof id === 'number' ? String(id) : null;
  } catch {
    return null;
  }
}
