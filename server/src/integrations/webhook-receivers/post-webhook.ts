import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isBlockedAddress, publicAddressLookup, type HostResolver } from '../../lib/blocked-address';
import { isTimeout } from '../timeouts';

/**
 * POSTs a signed webhook to a receiver of a tenant. The receiver's address is checked after DNS
 * resolution, inside the connection (so a name that resolves to a private address, now or after
 * it was saved, is refused), redirects are never followed (a 3xx is a failed attempt), the whole
 * call is bounded by a timeout, and at most `maxExcerptBytes` of the answer are read.
 */
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_EXCERPT_BYTES = 2_048;

export interface PostOutcome {
  /** The HTTP status, or null when no answer came (refused address, timeout, network). */
  statusCode: number | null;
  excerpt: string | null;
  durationMs: number;
  /** Why no answer came, in Spanish. */
  error: string | null;
  /** A 429 or 503 that asked for a pause (`Retry-After`, seconds or a date): how long, capped at a day. */
  retryAfterMs?: number | null;
}

export interface ReceiverClient {
  post(url: string, headers: Record<string, string>, body: string): Promise<PostOutcome>;
  close(): Promise<void>;
}


export interface ReceiverClientOptions {
  /** WEBHOOKS_ALLOW_PRIVATE_HOSTS=1: private addresses and plain http allowed (tests only). */
  allowPrivate: boolean;
  timeoutMs?: number;
  maxExcerptBytes?: number;
  /** Connections kept per receiver origin (also bounds the requests at once to one receiver). */
  connectionsPerOrigin?: number;
  resolve?: HostResolver;
}

const BLOCKED = 'EWEBHOOKBLOCKED';
export const BLOCKED_MESSAGE = 'La URL apunta a una dirección privada, local o reservada';

export function createReceiverClient(opts: ReceiverClientOptions): ReceiverClient {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const maxBytes = opts.maxExcerptBytes ?? WEBHOOK_EXCERPT_BYTES;
  const agent = new Agent({
    connections: opts.connectionsPerOrigin ?? 4,
    connect: opts.allowPrivate ? { timeout: 5_000 } : { timeout: 5_000, lookup: publicAddressLookup(BLOCKED, opts.resolve) },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  return {
    async post(url, headers, body) {
      const started = performance.now();
      const took = () => Math.round(performance.now() - started);
      if (!opts.allowPrivate && literalBlocked(url)) return { statusCode: null, excerpt: null, durationMs: 0, error: BLOCKED_MESSAGE };
      try {
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Masivo-Webhooks/1' },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        let excerpt = '';
        let read = 0;
        try {
          for await (const chunk of res.body) {
            const buf = chunk as Buffer;
            excerpt += buf.subarray(0, Math.max(0, maxBytes - read)).toString('utf8');
            read += buf.length;
            if (read >= maxBytes) break;
          }
        } catch {
          // A body cut short still leaves the status code, which is what decides.
        }
        res.body.destroy();
        const retryAfterMs = res.statusCode === 429 || res.statusCode === 503 ? retryAfter(res.headers['retry-after']) : null;
        return { statusCode: res.statusCode, excerpt: excerpt.replace(/\0/g, '') || null, durationMs: took(), error: null, retryAfterMs };
      } catch (err) {
        return { statusCode: null, excerpt: null, durationMs: took(), error: transportError(err, timeoutMs) };
      }
    },
    close: () => agent.close(),
  };
}

const DAY_MS = 86_400_000;

function retryAfter(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const ms = /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, DAY_MS) : null;
}

function literalBlocked(link: string): boolean {
  const host = new URL(link).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isBlockedAddress(host);
}

function transportError(err: unknown, timeoutMs: number): string {
  const e = err as { code?: string; cause?: { code?: string } };
  if (e?.code === BLOCKED || e?.cause?.code === BLOCKED) return BLOCKED_MESSAGE;
  if (isTimeout(err)) return `El receptor no respondió en ${Math.round(timeoutMs / 1000)} s`;
  return `No se pudo conectar con el receptor (${e?.code ?? e?.cause?.code ?? 'error de red'})`;
}
