import { Agent, request } from 'undici';
import { SUBDOMAIN_PATTERN } from '@masivo/contract/kommo-accounts';
import { endHttpClientSpan, httpClientAttributes, SpanKind, startSpan, tracingOn } from '../../lib/tracing';
import { KommoError, messageForStatus } from './errors';
import { limiterFor, sleep, type LimiterPool, type RatePriority } from './rate-limiter';
import type { KommoAccountInfo, KommoContact, KommoCredentials, KommoCustomField } from './types';

/** Kommo caps list pages at 250 items. */
export const KOMMO_PAGE_LIMIT = 250;
/** Ids per `filter[id][]` lookup: keeps the URL well under common request-line limits. */
export const KOMMO_IDS_PER_LOOKUP = 100;
/** Pages of custom fields read for one account; accounts have a few dozen fields. */
export const CUSTOM_FIELD_PAGE_CAP = 8;

export interface KommoClientOptions {
  /** KOMMO_BASE_URL, e.g. `https://{subdomain}.kommo.com`. */
  baseUrlTemplate: string;
  /** KOMMO_RPS: requests per second per Kommo account. */
  rps: number;
  /** Where each account's limiter lives (shared through the database on PostgreSQL); this process's own by default. */
  limiters?: LimiterPool;
  timeoutMs?: number;
  /** Retries of a 5xx answer or a timeout / connection error. */
  retries?: number;
  backoffMs?: number;
  /** Upper bound on a 429's retry_after we honour before giving up the call. */
  maxRetryAfterMs?: number;
  /** 429s one call accepts, and their summed waits, before giving up: Kommo can keep an account limited for good. */
  max429s?: number;
  max429WaitMs?: number;
  /** Largest answer body read; Kommo pages are far below it, anything bigger is not Kommo. */
  maxBodyBytes?: number;
  /** This client's turn on the account's limiter, unless a call says otherwise (`rate-limiter.ts`). */
  priority?: RatePriority;
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
  /** Those of `ids` Kommo still has (at most KOMMO_IDS_PER_LOOKUP per call). */
  contactsByIds(creds: KommoCredentials, ids: number[], signal?: AbortSignal): Promise<KommoContact[]>;
  stats(): { requests: number; count429: number };
}

/** How one request is sent: the method, an optional JSON body, and whether it may be repeated. */
export interface KommoCallOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  query?: URLSearchParams;
  body?: unknown;
  signal?: AbortSignal;
  /** Tells a real 200 answer from a garbled one. */
  valid: (body: unknown) => boolean;
  /**
   * False for a call that is not idempotent (adding notes): a 5xx, a timeout or a garbled answer
   * may mean Kommo did the work, so it is not repeated; it fails with `unsure` set instead.
   */
  repeatable?: boolean;
  /** 'high' goes before waiting 'normal' calls of this process on the account's limiter. */
  priority?: RatePriority;
}

/** The raw request behind every call, with the account's rate limiter and retries (write-back uses it). */
export interface KommoTransport {
  call<T>(creds: KommoCredentials, path: string, opts: KommoCallOptions): Promise<T | null>;
}

const agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });

/** The only way a subdomain becomes part of a URL: anything else never leaves the process. */
export function kommoBaseUrl(template: string, subdomain: string): string {
  if (!SUBDOMAIN_PATTERN.test(subdomain)) {
    throw new KommoError('invalid_subdomain', 'Subdominio inválido: usa solo el nombre de tu cuenta Kommo (por ejemplo, miempresa)');
  }
  return template.replace('{subdomain}', subdomain).replace(/\/+$/, '');
}

export function createKommoClient(opts: KommoClientOptions): KommoClient & KommoTransport {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const retries = opts.retries ?? 5;
  const backoffMs = opts.backoffMs ?? 500;
  const maxRetryAfterMs = opts.maxRetryAfterMs ?? 10 * 60_000;
  const max429s = opts.max429s ?? 10;
  const max429WaitMs = opts.max429WaitMs ?? 15 * 60_000;
  const maxBodyBytes = opts.maxBodyBytes ?? 16 * 1024 * 1024;
  const counters = { requests: 0, count429: 0 };

  /**
   * GET with retries. `valid` tells a real answer from a garbled one: a 200 that is empty or
   * lacks what the endpoint always sends is retried like a 5xx, never taken as "no data".
   */
  function get<T>(
    creds: KommoCredentials,
    path: string,
    query: URLSearchParams,
    signal: AbortSignal | undefined,
    valid: (body: unknown) => boolean,
  ): Promise<T | null> {
    return call<T>(creds, path, { query, signal, valid });
  }

  async function call<T>(creds: KommoCredentials, path: string, callOpts: KommoCallOptions): Promise<T | null> {
    const { signal, valid } = callOpts;
    const query = callOpts.query ?? new URLSearchParams();
    const method = callOpts.method ?? 'GET';
    const repeatable = callOpts.repeatable ?? true;
    const payload = callOpts.body === undefined ? undefined : JSON.stringify(callOpts.body);
    const base = kommoBaseUrl(opts.baseUrlTemplate, creds.subdomain);
    const url = `${base}${path}${query.size ? `?${query}` : ''}`;
    const limiter = (opts.limiters ?? limiterFor)(`${opts.baseUrlTemplate}|${creds.subdomain}`, opts.rps);
    let failures = 0;
    let limited = 0;
    let limitedWaitMs = 0;
    for (;;) {
      const answered = await limiter.acquire(signal, { priority: callOpts.priority ?? opts.priority ?? 'normal' });
      counters.requests++;
      let status: number;
      let text: string | null;
      let garbled = false;
      // One client span per attempt (lib/tracing.ts); null with tracing off.
      const span = tracingOn()
        ? startSpan(method, { kind: SpanKind.CLIENT, attributes: httpClientAttributes(method, new URL(url), 'kommo') })
        : null;
      try {
        const res = await request(url, {
          method,
          headers: {
            authorization: `Bearer ${creds.accessToken}`,
            accept: 'application/hal+json, application/json',
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: payload,
          dispatcher: agent,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
          signal,
        });
        answered();
        status = res.statusCode;
        text = await readCapped(res.body, maxBodyBytes);
        if (span) endHttpClientSpan(span, status);
      } catch (err) {
        if (span) endHttpClientSpan(span, null, err);
        answered();
        if (signal?.aborted) throw signal.reason ?? err;
        if (!repeatable) throw unsure('No se pudo confirmar la respuesta de Kommo (sin respuesta).');
        if (++failures > retries) {
          throw new KommoError('unavailable', 'No se pudo conectar con Kommo (sin respuesta). Intenta de nuevo más tarde.');
        }
        await sleep(backoff(backoffMs, failures), signal);
        continue;
      }
      if (text === null) {
        garbled = true; // oversized: not an answer Kommo gives
        status = 502;
        text = '';
      }
      if (status === 200) {
        const body = parseJson<T>(text);
        if (body !== undefined && body !== null && valid(body)) return body;
        // A garbled answer is treated like a server error: retried, then reported.
        garbled = true;
        status = 502;
      }
      if (status === 204) return null;
      if (status === 429) {
        // Wait as told, for everyone using this account: a second 429 risks the 403 block.
        counters.count429++;
        const waitMs = retryAfterMs(text);
        limitedWaitMs += waitMs;
        if (waitMs > maxRetryAfterMs || ++limited > max429s || limitedWaitMs > max429WaitMs) {
          throw new KommoError('rate_limited', 'Kommo limitó las peticiones de esta cuenta (429). Intenta de nuevo más tarde.', 429);
        }
        limiter.pause(waitMs);
        continue;
      }
      if (status >= 500) {
        if (!repeatable) throw unsure(garbled ? 'Kommo devolvió una respuesta incompleta o inválida.' : `Kommo no responde (HTTP ${status}).`, status);
        if (++failures > retries) {
          if (garbled) {
            throw new KommoError('unavailable', 'Kommo devolvió una respuesta incompleta o inválida. Intenta de nuevo más tarde.', 502);
          }
          throw new KommoError('unavailable', `Kommo no responde (HTTP ${status}). Intenta de nuevo más tarde.`, status);
        }
        await sleep(backoff(backoffMs, failures), signal);
        continue;
      }
      if (status === 400) {
        const rejected = validationErrors(text);
        if (rejected) throw rejected;
      }
      const { kind, message } = messageForStatus(status, creds.subdomain);
      throw new KommoError(kind, message, status);
    }
  }

  return {
    async account(creds, signal) {
      const body = await get<KommoAccountInfo>(creds, '/api/v4/account', new URLSearchParams(), signal, (b) => isObject(b));
      if (!body) throw new KommoError('rejected', 'Kommo no devolvió los datos de la cuenta.');
      return body;
    },

    async customFields(creds, signal) {
      const out: KommoCustomField[] = [];
      // The page cap only guards against a server that never ends.
      for (let page = 1; page <= CUSTOM_FIELD_PAGE_CAP; page++) {
        const query = new URLSearchParams({ page: String(page), limit: String(KOMMO_PAGE_LIMIT) });
        const body = await get<{ _embedded?: { custom_fields?: KommoCustomField[] } }>(
          creds,
          '/api/v4/contacts/custom_fields',
          query,
          signal,
          (b) => Array.isArray((b as { _embedded?: { custom_fields?: unknown } })._embedded?.custom_fields),
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
      const body = await get<{ _embedded: { contacts: KommoContact[] } }>(creds, '/api/v4/contacts', query, signal, hasContacts);
      return body ? body._embedded.contacts : null;
    },

    async contactsByIds(creds, ids, signal) {
      if (ids.length === 0) return [];
      const query = new URLSearchParams({ limit: String(KOMMO_PAGE_LIMIT) });
      for (const id of ids.slice(0, KOMMO_IDS_PER_LOOKUP)) query.append('filter[id][]', String(id));
      const body = await get<{ _embedded: { contacts: KommoContact[] } }>(creds, '/api/v4/contacts', query, signal, hasContacts);
      return body ? body._embedded.contacts : [];
    },

    stats: () => ({ ...counters }),
    call,
  };
}

/** A non-repeatable call whose outcome is unknown: Kommo may or may not have done the work. */
function unsure(message: string, status?: number): KommoError {
  const err = new KommoError('unavailable', `${message} Intenta de nuevo más tarde.`, status);
  err.unsure = true;
  return err;
}

/**
 * Kommo answers a batch with an invalid entry with 400 and `validation-errors`, one entry per
 * refused item (named by its `request_id`, or its index in the batch); nothing of the batch is done.
 */
function validationErrors(text: string): KommoError | null {
  try {
    const body = JSON.parse(text) as { 'validation-errors'?: Array<{ request_id?: unknown; errors?: Array<{ detail?: unknown; path?: unknown }> }> };
    const list = body['validation-errors'];
    if (!Array.isArray(list) || list.length === 0) return null;
    const err = new KommoError('rejected', 'Kommo rechazó parte del lote (HTTP 400).', 400);
    err.refused = list.map((v) => ({
      requestId: String(v.request_id ?? ''),
      detail: String(v.errors?.[0]?.detail ?? v.errors?.[0]?.path ?? 'dato inválido'),
    }));
    return err;
  } catch {
    return null;
  }
}

const isObject = (b: unknown): b is Record<string, unknown> => typeof b === 'object' && b !== null && !Array.isArray(b);

/** A contacts list answer always carries `_embedded.contacts`; "no contacts" is a 204, never an empty 200. */
const hasContacts = (b: unknown) => isObject(b) && Array.isArray((b._embedded as { contacts?: unknown } | undefined)?.contacts);

/** Reads a body up to `max` bytes; null when it is larger (the rest is not read). */
async function readCapped(body: AsyncIterable<Buffer | Uint8Array> & { destroy?: (err?: Error) => unknown }, max: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > max) {
      body.destroy?.();
      return null;
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
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
