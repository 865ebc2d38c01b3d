import { sql } from 'drizzle-orm';
import { UNSCOPED_ROLES, type Role, type Scope } from '@masivo/contract/organizations';
import { intArray, rowsOf, type Queryable } from '../../db/sql';

/**
 * What a scoped member may see, resolved once per request: the numbers of their scope, and the
 * Kommo accounts of their scope plus those their numbers are linked to (contacts, blacklists and
 * syncs follow Kommo accounts). A scope of Kommo accounts only reaches the numbers linked to
 * them. `null`: everything the role allows (no scope, or an owner / administrator).
 */
export interface Visible {
  whatsapp: ReadonlySet<number>;
  kommo: ReadonlySet<number>;
}

export type ScopedKind = 'kommo' | 'whatsapp' | 'campaign' | 'template';

/** `restricted`: an API key limited to some numbers, scoped whatever its creator's role. */
export const isScoped = (role: Role | null, scope: Scope, restricted = false) =>
  !!role &&
  (restricted || !UNSCOPED_ROLES.includes(role)) &&
  (scope.whatsapp_account_ids.length > 0 || scope.kommo_account_ids.length > 0);

export async function visibleResources(db: Queryable, orgId: number, role: Role | null, scope: Scope, restricted = false): Promise<Visible | null> {
  if (!isScoped(role, scope, restricted)) return null;
  const w = intArray(scope.whatsapp_account_ids);
  const k = intArray(scope.kommo_account_ids);
  const [row] = await rowsOf<{ wa: number[]; ko: number[] }>(
    db,
    sql`select array(select id from whatsapp_accounts
                      where user_id = ${orgId}
                        and (id = any(${w}) or (cardinality(${w}) = 0 and kommo_account_id = any(${k})))) as wa,
               array(select id from kommo_accounts
                      where user_id = ${orgId}
                        and (id = any(${k}) or id in (select kommo_account_id from whatsapp_accounts
                                                       where user_id = ${orgId} and id = any(${w})))) as ko`,
  );
  return { whatsapp: new Set((row?.wa ?? []).map(Number)), kommo: new Set((row?.ko ?? []).map(Number)) };
}

/**
 * Whether one id of a kind is within what a member sees. Campaigns are in scope when their
 * number is (a campaign has one number), templates when their number is.
 */
export async function isVisible(db: Queryable, orgId: number, visible: Visible, kind: ScopedKind, id: number): Promise<boolean> {
  if (kind === 'kommo') return visible.kommo.has(id);
  if (kind === 'whatsapp') return visible.whatsapp.has(id);
  const table = kind === 'campaign' ? sql`campaigns` : sql`templates`;
  const [row] = await rowsOf<{ wa: number | null }>(db, sql`select whatsapp_account_id as wa from ${table} where id = ${id} and user_id = ${orgId}`);
  // Not there at all: the route's own lookup answers its usual 404.
  if (!row) return true;
  return row.wa != null && visible.whatsapp.has(Number(row.wa));
}
