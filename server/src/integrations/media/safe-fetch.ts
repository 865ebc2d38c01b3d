import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isTimeout } from '../timeouts';
import { isBlockedAddress, publicAddressLookup } from '../../lib/blocked-address';

/**
 * Fetches a link on a tenant's behalf (a media header). The address is checked after DNS
 * resolution, inside the connection itself, so a name that resolves to a private address
 * (or changes between a check and the connection) is refused; redirects are followed by
 * hand and every hop goes through the same check. Time and size are capped.
 */
export const MEDIA_FETCH_TIMEOUT_MS = 10_000;
export const MEDIA_MAX_REDIRECTS = 3;

export class MediaFetchError extends Error {}

export interface FetchedMedia {
  contentType: string;
  /** The bytes when asked for, else empty. */
  bytes: Buffer;
  /** Declared length (HEAD-like checks) or the bytes read. */
  size: number;
  finalUrl: string;
}

export interface SafeFetchOptions {
  allowPrivate: boolean;
  /** Bytes beyond which the fetch stops with an error. */
  maxBytes: number;
  /** false: only headers are read (a check before saving); true: the body too (an upload). */
  readBody: boolean;
  timeoutMs?: number;
}

export const guardedLookup = publicAddressLookup('EMEDIABLOCKED');

const guardedAgent = new Agent({ connect: { lookup: guardedLookup, timeout: 5_000 }, connections: 8 });
/**
 * MEDIA_ALLOW_PRIVATE_HOSTS=1 (tests and the demo) serves media from this machine, whose
 * https server has a self-signed certificate; production never uses this agent.
 */
const openAgent = new Agent({ connect: { timeout: 5_000, rejectUnauthorized: false }, connections: 8 });

export async function safeFetchMedia(link: string, opts: SafeFetchOptions): Promise<FetchedMedia> {
  const timeoutMs = opts.timeoutMs ?? MEDIA_FETCH_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  let url = parseHttps(link);
  for (let hop = 0; hop <= MEDIA_MAX_REDIRECTS; hop++) {
    if (!opts.allowPrivate) refuseLiteralAddress(url);
    let res;
    try {
      res = await request(url, {
        method: 'GET',
        dispatcher: opts.allowPrivate ? openAgent : guardedAgent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal,
        headers: { accept: 'image/*, video/*, application/pdf;q=0.9, */*;q=0.1' },
      });
    } catch (err) {
      throw transportError(err);
    }
    if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
      await res.body.dump().catch(() => undefined);
      url = parseHttps(new URL(String(res.headers.location), url).toString());
      continue;
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump().catch(() => undefined);
      throw new MediaFetchError(`El enlace respondió con el estado HTTP ${res.statusCode}`);
    }
    const contentType = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > opts.maxBytes) {
      await res.body.dump().catch(() => undefined);
      return { contentType, bytes: Buffer.alloc(0), size: declared, finalUrl: url.toString() };
    }
    if (!opts.readBody) {
      await res.body.dump().catch(() => undefined);
      return { contentType, bytes: Buffer.alloc(0), size: Number.isFinite(declared) ? declared : 0, finalUrl: url.toString() };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > opts.maxBytes) {
          res.body.destroy();
          return { contentType, bytes: Buffer.alloc(0), size, finalUrl: url.toString() };
        }
        chunks.push(chunk as Buffer);
      }
    } catch (err) {
      throw transportError(err);
    }
    return { contentType, bytes: Buffer.concat(chunks), size, finalUrl: url.toString() };
  }
  throw new MediaFetchError(`El enlace redirige más de ${MEDIA_MAX_REDIRECTS} veces`);
}

function parseHttps(link: string): URL {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new MediaFetchError('El enlace del archivo no es una URL válida');
  }
  if (url.protocol !== 'https:') throw new MediaFetchError('El enlace del archivo debe usar https://');
  if (url.username || url.password) throw new MediaFetchError('El enlace del archivo no puede llevar usuario ni contraseña');
  return url;
}

function refuseLiteralAddress(url: URL): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isBlockedAddress(host)) throw blockedError();
  if (host === 'localhost' || host.endsWith('.localhost')) throw blockedError();
}

const blockedError = () => new MediaFetchError('El enlace apunta a una dirección privada o local: usa un enlace público');

function transportError(err: unknown): MediaFetchError {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  if (e?.code === 'EMEDIABLOCKED' || e?.cause?.code === 'EMEDIABLOCKED') return blockedError();
  if (isTimeout(err)) {
    return new MediaFetchError('El enlace del archivo no respondió a tiempo');
  }
  return new MediaFetchError(`No se pudo descargar el archivo del enlace (${e?.code ?? 'error de red'})`);
}
