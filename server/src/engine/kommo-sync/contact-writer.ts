import { sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import type { ContactRecord } from './contact-mapper';

/**
 * One statement per page: the page travels as a single JSON parameter and
 * jsonb_to_recordset turns it into rows, so 250 contacts cost one round trip.
 *
 * An unchanged contact is only touched when its sync generation must move (full sync);
 * none of its indexed columns change then, so PostgreSQL can update it in place (HOT).
 * The filter facets (contact_facets) follow through the contacts triggers of 0002_kommo.sql,
 * which only rewrite them when tags or custom fields really changed.
 */
export async function upsertContacts(
  db: Db | Tx,
  p: { userId: number; accountId: number; generation: number; contacts: ContactRecord[] },
): Promise<void> {
  if (p.contacts.length === 0) return;
  // The same id twice in one statement would fail ON CONFLICT; Kommo pages should not repeat, but a shifting list can.
  const unique = [...new Map(p.contacts.map((c) => [c.kommo_id, c])).values()];
  await db.execute(sql`
    insert into contacts as c (user_id, account_id, kommo_id, name, first_name, last_name, phone, phone_raw, email,
                               tags, custom_fields, kommo_updated_at, sync_generation)
    select ${p.userId}, ${p.accountId}, x.kommo_id, x.name, x.first_name, x.last_name, x.phone, x.phone_raw, x.email,
           coalesce(x.tags, '{}'), coalesce(x.custom_fields, '{}'), x.kommo_updated_at, ${p.generation}
    from jsonb_to_recordset(${JSON.stringify(unique)}::jsonb) as x(
      kommo_id bigint, name text, first_name text, last_name text, phone text, phone_raw text, email text,
      tags text[], custom_fields jsonb, kommo_updated_at bigint)
    on conflict (account_id, kommo_id) do update set
      name = excluded.name, first_name = excluded.first_name, last_name = excluded.last_name,
      phone = excluded.phone, phone_raw = excluded.phone_raw, email = excluded.email,
      tags = excluded.tags, custom_fields = excluded.custom_fields,
      kommo_updated_at = excluded.kommo_updated_at, sync_generation = excluded.sync_generation,
      updated_at = now()
    where c.sync_generation is distinct from excluded.sync_generation
       or (c.name, c.first_name, c.last_name, c.phone, c.phone_raw, c.email, c.tags, c.custom_fields, c.kommo_updated_at)
          is distinct from
          (excluded.name, excluded.first_name, excluded.last_name, excluded.phone, excluded.phone_raw, excluded.email,
           excluded.tags, excluded.custom_fields, excluded.kommo_updated_at)`);
  const tags = [...new Set(unique.flatMap((c) => c.tags))];
  if (tags.length > 0) {
    await db.execute(sql`
      insert into contact_tags (account_id, name)
      select ${p.accountId}, t from jsonb_array_elements_text(${JSON.stringify(tags)}::jsonb) as t
      on conflict do nothing`);
  }
}

/** After a full sync: what Kommo no longer lists is gone, and so are tags nobody carries. */
export async function removeUnseen(db: Db | Tx, p: { accountId: number; generation: number }): Promise<void> {
  await db.execute(sql`delete from contacts where account_id = ${p.accountId} and sync_generation <> ${p.generation}`);
  await db.execute(sql`
    delete from contact_tags t where t.account_id = ${p.accountId}
      and not exists (select 1 from contacts c where c.account_id = ${p.accountId} and c.tags @> array[t.name])`);
}
