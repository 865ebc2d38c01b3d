import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  API_KEY_PREFIX,
  API_KEY_SCOPE_PERMISSIONS,
  API_KEY_SCOPES,
  MAX_ACTIVE_API_KEYS,
  createApiKeySchema,
  type ApiKey,
  type ApiKeyScope,
  type CreateApiKeyInput,
  type CreatedApiKey,
} from '@masivo/contract/api-keys';
import { can, type Role, type Scope } from '@masivo/contract/organizations';
import type { Db } from '../../db/client';
import { intArray, preparedRows, rowsOf, type Queryable } from '../../db/sql';
import { AppError, conflict, notFound } from '../../lib/errors';
import { parseWith } from '../../lib/parse-with';

export const API_KEY_NOT_FOUND = 'Clave de API no encontrada';
export const INVALID_API_KEY = 'La clave de API no es válida';
export const REVOKED_API_KEY = 'La clave de API fue revocada';
export const EXPIRED_API_KEY = 'La clave de API venció';
export const ORPHAN_API_KEY = 'La clave de API ya no es válida: quien la creó dejó la organización';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** 32 random bytes in base62 (no `-` or `_`: a double click selects the whole key). */
function base62(bytes: Buffer): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(43, '0');
}

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const looksLikeApiKey = (token: string) => token.startsWith(API_KEY_PREFIX);

/** The principal a key stands for: the organisation, its creator's role there, what the key may do. */
export interface ApiKeyPrincipal {
  id: number;
  name: string;
  orgId: number;
  createdBy: number;
  role: Role;
  scopes: readonly ApiKeyScope[];
  /** The creator's scope narrowed to the key's numbers. */
  scope: Scope;
  /** True when the key is limited to some numbers (it is then scoped whatever its creator's role). */
  restricted: boolean;
  rateLimitPerMinute: number;
}

interface KeyRow {
  id: number;
  organization_id: number;
  name: string;
  created_by: number | null;
  scopes: ApiKeyScope[];
  whatsapp_account_ids: number[];
  rate_limit_per_minute: number;
  expired: boolean;
  revoked: boolean;
  role: Role | null;
  scope_whatsapp_account_ids: number[] | null;
  scope_kommo_account_ids: number[] | null;
}

interface ListRow {
  id: number;
  name: string;
  start: string;
  scopes: ApiKeyScope[];
  whatsapp_account_ids: number[];
  rate_limit_per_minute: number;
  created_by: number | null;
  creator_name: string | null;
  created_at: Date | string;
  expires_at: Date | string | null;
  last_used_at: Date | string | null;
  last_used_ip: string | null;
  revoked_at: Date | string | null;
}

const iso = (v: Date | string | null) => (v === null ? null : new Date(v).toISOString());

function toApiKey(r: ListRow): ApiKey {
  const expired = r.expires_at !== null && new Date(r.expires_at).getTime() <= Date.now();
  return {
    id: Number(r.id),
    name: r.name,
    start: r.start,
    scopes: r.scopes,
    whatsapp_account_ids: (r.whatsapp_account_ids ?? []).map(Number),
    rate_limit_per_minute: Number(r.rate_limit_per_minute),
    created_by: r.created_by === null ? null : { id: Number(r.created_by), name: r.creator_name ?? '' },
    created_at: iso(r.created_at)!,
    expires_at: iso(r.expires_at),
    last_used_at: iso(r.last_used_at),
    last_used_ip: r.last_used_ip,
    revoked_at: iso(r.revoked_at),
    status: r.revoked_at ? 'revoked' : expired ? 'expired' : 'active',
  };
}

const listSelect = sql`select k.id, k.name, k.start, k.scopes, k.whatsapp_account_ids, k.rate_limit_per_minute, k.created_by,
      coalesce(nullif(trim(u.first_name || ' ' || u.last_name), ''), u.email) as creator_name,
      k.created_at, k.expires_at, k.last_used_at, k.last_used_ip, k.revoked_at
    from api_keys k left join users u on u.id = k.created_by`;

/** The numbers of `wanted` that are not the organisation's (or not within the creator's scope). */
async function foreignNumbers(db: Queryable, orgId: number, wanted: number[], creatorScope: Scope): Promise<number[]> {
  if (!wanted.length) return [];
  const allowed = creatorScope.whatsapp_account_ids;
  const rows = await rowsOf<{ id: number }>(
    db,
    sql`select id from whatsapp_accounts where user_id = ${orgId} and id = any(${intArray(wanted)})
        and (cardinality(${intArray(allowed)}) = 0 or id = any(${intArray(allowed)}))`,
  );
  const found = new Set(rows.map((r) => Number(r.id)));
  return wanted.filter((id) => !found.has(id));
}

/** Scopes a creator with this role may not give: a key never does more than its creator. */
export function scopesBeyond(role: Role | null, scopes: readonly ApiKeyScope[]): ApiKeyScope[] {
  return scopes.filter((s) => !API_KEY_SCOPE_PERMISSIONS[s].every((p) => can(role, p)));
}

export interface Creator {
  orgId: number;
  userId: number;
  role: Role | null;
  scope: Scope;
}

export function createApiKeysService(db: Db) {
  /** What this process last wrote as a key's last use: most requests then write nothing. */
  const lastWritten = new Map<number, { at: number; ip: string }>();

  return {
    async list(orgId: number): Promise<ApiKey[]> {
      const rows = await rowsOf<ListRow>(db, sql`${listSelect} where k.organization_id = ${orgId} order by k.created_at desc, k.id desc`);
      return rows.map(toApiKey);
    },

    async get(orgId: number, id: number): Promise<ApiKey> {
      const [row] = await rowsOf<ListRow>(db, sql`${listSelect} where k.organization_id = ${orgId} and k.id = ${id}`);
      if (!row) throw notFound(API_KEY_NOT_FOUND);
      return toApiKey(row);
    },

    /** A new key, shown whole only in this answer; only its SHA-256 is stored. */
    async create(creator: Creator, input: CreateApiKeyInput): Promise<CreatedApiKey> {
      const data = parseWith(createApiKeySchema, input);
      const scopes = [...new Set(data.scopes)].sort((a, b) => API_KEY_SCOPES.indexOf(a) - API_KEY_SCOPES.indexOf(b));
      const beyond = scopesBeyond(creator.role, scopes);
      if (beyond.length) throw new AppError(422, `Tu rol no permite dar estos permisos a una clave: ${beyond.join(', ')}`);
      const numbers = [...new Set(data.whatsapp_account_ids)];
      const foreign = await foreignNumbers(db, creator.orgId, numbers, creator.scope);
      if (foreign.length) throw new AppError(422, `Números de WhatsApp no encontrados: ${foreign.join(', ')}`);
      const key = `${API_KEY_PREFIX}${base62(randomBytes(32))}`;
      const id = await db.transaction(async (tx) => {
        // Serialised per organisation, so two creations cannot both pass the limit.
        await tx.execute(sql`select 1 from organizations where id = ${creator.orgId} for update`);
        const [count] = await rowsOf<{ n: number }>(
          tx,
          sql`select count(*)::int as n from api_keys
              where organization_id = ${creator.orgId} and revoked_at is null and (expires_at is null or expires_at > now())`,
        );
        if (Number(count?.n ?? 0) >= MAX_ACTIVE_API_KEYS) {
          throw conflict(`La organización ya tiene ${MAX_ACTIVE_API_KEYS} claves activas: revoca una antes de crear otra`);
        }
        const [row] = await rowsOf<{ id: number }>(
          tx,
          sql`insert into api_keys (organization_id, created_by, name, key_hash, start, scopes, whatsapp_account_ids, rate_limit_per_minute, expires_at)
              values (${creator.orgId}, ${creator.userId}, ${data.name}, ${hashApiKey(key)}, ${key.slice(0, API_KEY_PREFIX.length + 6)},
                      ${`{${scopes.join(',')}}`}::text[], ${intArray(numbers)}, ${data.rate_limit_per_minute},
                      ${data.expires_at ?? null}::timestamptz)
              returning id`,
        );
        return Number(row!.id);
      });
      return { ...(await this.get(creator.orgId, id)), key };
    },

    /** Revoked at once: the key's next request is a 401. Revoking twice is a no-op. */
    async revoke(orgId: number, id: number, byUserId: number): Promise<ApiKey> {
      await rowsOf(
        db,
        sql`update api_keys set revoked_at = now(), revoked_by = ${byUserId}
            where organization_id = ${orgId} and id = ${id} and revoked_at is null`,
      );
      lastWritten.delete(id);
      return this.get(orgId, id);
    },

    /**
     * The principal of a presented key, in one indexed statement with its creator's current
     * membership (a demoted or removed creator narrows or ends the key at once). Throws the
     * 401 a client should see; records the last use when this process has not lately.
     */
    async authenticate(key: string, ip: string): Promise<ApiKeyPrincipal> {
      const [row] = await preparedRows<KeyRow>(
        db,
        sql`select k.id, k.organization_id, k.name, k.created_by, k.scopes, k.whatsapp_account_ids, k.rate_limit_per_minute,
                   (k.expires_at is not null and k.expires_at <= now()) as expired, (k.revoked_at is not null) as revoked,
                   m.role, m.scope_whatsapp_account_ids, m.scope_kommo_account_ids
              from api_keys k
              left join organization_members m on m.organization_id = k.organization_id and m.user_id = k.created_by
             where k.key_hash = ${hashApiKey(key)}`,
      );
      if (!row) throw new AppError(401, INVALID_API_KEY);
      if (row.revoked) throw new AppError(401, REVOKED_API_KEY);
      if (row.expired) throw new AppError(401, EXPIRED_API_KEY);
      if (!row.role || row.created_by === null) throw new AppError(401, ORPHAN_API_KEY);
      const id = Number(row.id);
      const keyNumbers = (row.whatsapp_account_ids ?? []).map(Number);
      const memberNumbers = (row.scope_whatsapp_account_ids ?? []).map(Number);
      // Narrowed to the key's numbers; a key limited to numbers its creator lost sees none (-1).
      let numbers = memberNumbers;
      if (keyNumbers.length) {
        numbers = memberNumbers.length ? keyNumbers.filter((n) => memberNumbers.includes(n)) : keyNumbers;
        if (!numbers.length) numbers = [-1];
      }
      const seen = lastWritten.get(id);
      const now = Date.now();
      if (!seen || now - seen.at > 30_000 || seen.ip !== ip) {
        lastWritten.set(id, { at: now, ip });
        await db.execute(sql`update api_keys set last_used_at = now(), last_used_ip = ${ip.slice(0, 64)} where id = ${id}`);
      }
      return {
        id,
        name: row.name,
        orgId: Number(row.organization_id),
        createdBy: Number(row.created_by),
        role: row.role,
        scopes: row.scopes,
        scope: {
          whatsapp_account_ids: numbers,
          kommo_account_ids: keyNumbers.length ? [] : (row.scope_kommo_account_ids ?? []).map(Number),
        },
        restricted: keyNumbers.length > 0,
        rateLimitPerMinute: Number(row.rate_limit_per_minute),
      };
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
