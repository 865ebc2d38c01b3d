// Media of the Cloud API simulator: uploads to /{phone-number-id}/media (sent later by id),
// Resumable Upload sessions for template samples (`header_handle`), and the link fetch Meta
// makes for a header sent by link. Only sizes and types are kept, never the bytes.
import { randomBytes } from 'node:crypto';
import { graphError, type GraphError } from './errors';

const MB = 1024 * 1024;

/** Meta's supported media types and size limits per kind. */
const KINDS: Record<string, { types: string[]; max: number }> = {
  image: { types: ['image/jpeg', 'image/png'], max: 5 * MB },
  video: { types: ['video/mp4', 'video/3gpp'], max: 16 * MB },
  document: {
    types: [
      'application/pdf', 'text/plain', 'application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ],
    max: 100 * MB,
  },
  audio: { types: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'], max: 16 * MB },
  sticker: { types: ['image/webp'], max: 500 * 1024 },
};

/** The simulated Meta app: the Resumable Upload API answers for this app id only. */
export const SIM_APP_ID = '1234567890123456';

/** Largest body an upload route accepts (a 100 MB document plus multipart framing). */
export const MAX_UPLOAD_BODY = 101 * MB;
const LINK_TIMEOUT_MS = 5_000;
const LINK_CACHE_MS = 60_000;

export function kindOfMime(mime: string): string | null {
  const m = mime.split(';')[0]!.trim().toLowerCase();
  for (const [kind, spec] of Object.entries(KINDS)) if (spec.types.includes(m)) return kind;
  return null;
}

/** The refusal for bytes of `mime` and `size`, expected to be of `kind` when given. */
export function mediaProblem(mime: string, size: number, kind?: string): string | null {
  const actual = kindOfMime(mime);
  if (!actual) return `Param file must be a file with one of the supported media types (got ${mime || 'none'})`;
  if (kind && actual !== kind && !(kind === 'gif' && actual === 'video')) return `Media type ${mime} does not match the ${kind} header`;
  const max = KINDS[actual]!.max;
  if (size > max) return `The ${actual} file is ${size} bytes; the limit is ${max} bytes`;
  return null;
}

export interface StoredMedia {
  id: string;
  phoneNumberId: string;
  mime: string;
  size: number;
  filename: string | null;
}

interface UploadSession {
  id: string;
  fileLength: number;
  fileType: string;
}

let nextMediaId = 1_037_543_291_000_000 + Math.floor(Math.random() * 1_000) * 1_000;

export class MediaStore {
  private media = new Map<string, StoredMedia>();
  private sessions = new Map<string, UploadSession>();
  private handles = new Set<string>();
  private links = new Map<string, { at: number; problem: string | null }>();

  add(phoneNumberId: string, mime: string, size: number, filename: string | null): StoredMedia {
    const m: StoredMedia = { id: String(nextMediaId++), phoneNumberId, mime, size, filename };
    this.media.set(m.id, m);
    return m;
  }

  get(id: string): StoredMedia | undefined {
    return this.media.get(id);
  }

  list(): StoredMedia[] {
    return [...this.media.values()];
  }

  openSession(fileLength: number, fileType: string): string {
    const id = `upload:${randomBytes(24).toString('base64url')}`;
    this.sessions.set(id, { id, fileLength, fileType });
    return id;
  }

  /** Finishes a session with its bytes; returns the handle or the refusal. */
  finishSession(id: string, offset: number, size: number): { h: string } | { error: GraphError } {
    const s = this.sessions.get(id);
    if (!s) return { error: graphError(100, `Upload session ${id} does not exist`) };
    if (offset !== 0 || size !== s.fileLength) {
      return { error: graphError(100, `file_offset ${offset} with ${size} bytes does not complete a file of ${s.fileLength} bytes`) };
    }
    this.sessions.delete(id);
    const h = `4::${Buffer.from(s.fileType).toString('base64')}:${randomBytes(18).toString('base64url')}`;
    this.handles.add(h);
    return { h };
  }

  isHandle(h: unknown): boolean {
    return typeof h === 'string' && this.handles.has(h);
  }

  /**
   * Fetches a header link the way Meta does before delivering: a failure (unreachable, not
   * 2xx, wrong type, too large) is the reason of a 131053. Results are cached for a minute,
   * as a campaign sends the same link to many recipients.
   */
  async linkProblem(link: string, kind: string): Promise<string | null> {
    const key = `${kind} ${link}`;
    const cached = this.links.get(key);
    if (cached && Date.now() - cached.at < LINK_CACHE_MS) return cached.problem;
    const problem = await fetchProblem(link, kind);
    this.links.set(key, { at: Date.now(), problem });
    return problem;
  }

  clear(): void {
    this.links.clear();
  }
}

async function fetchProblem(link: string, kind: string): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return `Invalid media link ${link}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `Unsupported media link protocol ${url.protocol}`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(LINK_TIMEOUT_MS) });
    const mime = res.headers.get('content-type') ?? '';
    const declared = Number(res.headers.get('content-length') ?? NaN);
    await res.body?.cancel();
    if (!res.ok) return `Media link answered HTTP ${res.status}`;
    return mediaProblem(mime, Number.isFinite(declared) ? declared : 0, kind);
  } catch (err) {
    return `Media link could not be downloaded (${(err as Error).name})`;
  }
}

/** The media error Meta gives when it cannot get or use a message's media. */
export const mediaError = (details: string) => graphError(131053, details);

/** Parts of a multipart/form-data body: fields as text, the file as its size and type. */
export interface MultipartForm {
  fields: Record<string, string>;
  file: { size: number; mime: string; filename: string | null } | null;
}

export function parseMultipart(body: Buffer, contentType: string): MultipartForm | null {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const form: MultipartForm = { fields: {}, file: null };
  let start = body.indexOf(delimiter);
  while (start >= 0) {
    const partStart = start + delimiter.length;
    if (body.subarray(partStart, partStart + 2).toString() === '--') break;
    const next = body.indexOf(delimiter, partStart);
    if (next < 0) break;
    const part = body.subarray(partStart + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    if (headerEnd >= 0) {
      const headers = part.subarray(0, headerEnd).toString('utf8');
      const content = part.subarray(headerEnd + 4);
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      const mime = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? '';
      if (name && filename !== undefined) form.file = { size: content.length, mime, filename: filename || null };
      else if (name) form.fields[name] = content.toString('utf8');
    }
    start = next;
  }
  return form;
}
