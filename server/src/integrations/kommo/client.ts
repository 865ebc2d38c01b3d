import { Agent, request } from 'undici';
import { SUBDOMAIN_PATTERN } from '@masivo/contract/kommo-accounts';
import { KommoError, messageForStatus } from './errors';
import { limiterFor, sleep } from './rate-limiter';
import type { KommoAccountInfo, KommoContact, KommoCredentials, KommoCustomField } from './types';

/** Kommo caps list pages at 250 items. */
export const KOMMO_PAGE_LIMIT = 250;

export interface KommoClientOptions {
  /** KOMMO_BASE_URL, e.g. `https://{subdomain}.kommo.com`. */
  baseUrlTemplate: string;
  /** KOMMO_RPS: requests per second per Kommo account. */
  rps: number;
  timeoutMs?: number;
  /** Retries of a 5xx answer or a timeout / connection error. */
  retries?: number;
  backoffMs?: number;
  /** Upper bound on a 429's retry_after we honour before giving up the call. */
  maxRetryAfterMs?: number;
}

export interface ContactsPageQuery {
  page: number;
  limit?: number;
  /** Unix seconds: only contacts updated at or after this instant. */
  updatedFrom?: number;
  order?: 'id' | 'updated_at';
}

export interface KommoClient {
  account(creds: KommoCredentials, signal?: AbortSignal): Promise<KommoAccountInfo>;
  customFields(creds: KommoCredentials, signal?: AbortSignal): Promise<KommoCustomField[]>;
  /** One page of contacts, or null past the last page (Kommo answers 204). */
  contactsPage(creds: KommoCredentials, query: ContactsPageQuery, signal?: AbortSignal): Promise<KommoContact[] | null>;
  stats(): { requests: number; count429: number };
}

const agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });

/** The only way a subdomain becomes part of a URL: anything else never leaves the process. */
export function kommoBaseUrl(template: string, subdomain: string): string {
  if (!SUBDOMAIN_PATTERN.test(subdomain)) {
    throw new KommoError('invalid_subdomain', 'Subdominio inválido: usa solo el nombre de tu cuenta Kommo (por ejemplo, miempresa)');
  }
  return template.replace('{subdomain}', subdomain).replace(/\/+$/, '');
}

export function createKommoClient(opts: KommoClientOptions): KommoClient {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const retries = opts.retries ?? 5;
  const backoffMs = opts.backoffMs ?? 500;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? 10 * 60_000;
  const counters = { requests: 0, count429: 0 };

  async function get<T>(creds: KommoCredentials, path: string, query: URLSearchParams, signal?: AbortSignal): Promise<T | null> {
    const base = kommoBaseUrl(opts.baseUrlTemplate, creds.subdomain);
    const url = `${base}${path}${query.size ? `?${query}` : ''}`;
    const limiter = limiterFor(`${opts.baseUrlTemplate}|${creds.subdomain}`, opts.rps);
    let failures = 0;
    for (;;) {
      const answered = await limiter.acquire(signal);
      counters.requests++;
      let status: number;
      let text: string;
      try {
        const res = await request(url, {
          method: 'GET',
          headers: { authorization: `Bearer ${creds.accessToken}`, accept: 'application/hal+json, application/json' },
          dispatcher: agent,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal,
        });
        answered();
        status = res.statusCode;
        text = await res.body.text();
      } catch (err) {
        answered();
        if (signal?.aborted) throw signal.reason ?? err;
        if (++failures > retries) {
          throw new KommoError('unavailable', 'No se pudo conectar con Kommo (sin respuesta). Intenta de nuevo más tarde.');
        }
        await sleep(backoff(backoffMs, failures), signal);
        continue;
      }
      if (status === 200) {
        const body = parseJson<T>(text);
        if (body !== undefined) return body;
        // A garbled answer is treated like a server error: retried, then reported.
        status = 502;
      }
      if (status === 204) return null;
      if (status === 429) {
        // Wait as told, for everyone using this account: a second 429 risks the 403 block.
        counters.count429++;
        const waitMs = retryAfterMs(text);
        if (waitMs > maxRetryAfterMs) {
          throw new KommoError('rate_limited', 'Kommo limitó las peticiones de esta cuenta (429). Intenta de nuevo más tarde.', 429);
        }
        limiter.pause(waitMs);
        continue;
      }
      if (status >= 500) {
        if (++failures > retries) {
          throw new KommoError('unavailable', `Kommo no responde (HTTP ${status}). Intenta de nuevo más tarde.`, status);
        }
        await sleep(backoff(backoffMs, failures), signal);
        continue;
      }
      const { kind, message } = messageForStatus(status, creds.subdomain);
      throw new KommoError(kind, message, status);
    }
  }

  return {
    async account(creds, signal) {
      const body = await get<KommoAccountInfo>(creds, '/api/v4/account', new URLSearchParams(), signal);
      if (!body) throw new KommoError('rejected', 'Kommo no devolvió los datos de la cuenta.');
      return body;
    },

    async customFields(creds, signal) {
      const out: KommoCustomField[] = [];
      // Accounts have a few dozen fields; the page cap only guards against a server that never ends.
      for (let page = 1; page <= 40; page++) {
        const query = new URLSearchParams({ page: String(page), limit: String(KOMMO_PAGE_LIMIT) });
        const body = await get<{ _embedded?: { custom_fields?: KommoCustomField[] } }>(
          creds,
          '/api/v4/contacts/custom_fields',
          query,
          signal,
        );
        const list = body?._embedded?.custom_fields ?? [];
        for (const f of list) out.push({ id: Number(f.id), name: String(f.name ?? ''), type: String(f.type ?? ''), code: f.code ?? null });
        if (list.length < KOMMO_PAGE_LIMIT) break;
      }
      return out;
    },

    async contactsPage(creds, q, signal) {
      const query = new URLSearchParams({ page: String(q.page), limit: String(q.limit ?? KOMMO_PAGE_LIMIT) });
      if (q.updatedFrom !== undefined) query.set('filter[updated_at][from]', String(q.updatedFrom));
      query.set(`order[${q.order ?? 'id'}]`, 'asc');
      const body = await get<{ _embedded?: { contacts?: KommoContact[] } }>(creds, '/api/v4/contacts', query, signal);
      if (!body) return null;
      return body._embedded?.contacts ?? [];
    },

    stats: () => ({ ...counters }),
  };
}

function backoff(baseMs: number, failures: number): number {
  const exp = Math.min(baseMs * 2 ** (failures - 1), 30_000);
  return exp / 2 + Math.random() * (exp / 2);
}

/** retry_after is in seconds in Kommo's JSON body; a non-JSON 429 gets a cautious default. */
function retryAfterMs(text: string): number {
  try {
    const v = Number((JSON.parse(text) as { retry_after?: unknown }).retry_after);
    if (Number.isFinite(v) && v > 0) return v * 1000;
  } catch {
    // not JSON
  }
  return 5_000;
}

function parseJson<T>(text: string): T | null | undefined {
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
