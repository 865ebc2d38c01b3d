-- Exact counts at a million contacts without touching the wide contacts heap (issue 16).
--
-- 1. contact_search: per contact, its search text (SEARCH_TEXT of filter-engine.ts) already
--    lowercased. ILIKE on UTF-8 lowercases both sides and then matches, so `search like
--    lower(pattern)` selects exactly the rows ILIKE selects, at a fraction of the cost: the row is
--    a sixth of a contact's and no per-row lowercasing is left. Its trigram index serves rare terms.
-- 2. contact_key_counts: per account and filter key (the keys of contact_facets, plus '#' for
--    "every contact"), how many contacts hold it. A single tag, an "exists" / "not exists", and any
--    set of values of one field (a contact holds one value per field, so the values' counts add up)
--    are then one look-up instead of a count.
-- Both are kept by the statement triggers below, whoever writes contacts, in the same transaction.

create table contact_search (
  contact_id bigint primary key references contacts(id) on delete cascade,
  user_id integer not null,
  account_id integer not null,
  search text not null
);

create table contact_key_counts (
  account_id integer not null references kommo_accounts(id) on delete cascade,
  key text not null,
  n bigint not null,
  primary key (account_id, key)
);

-- The counted keys of one contact: its filter keys and '#' (a key no tag or field can produce).
create function contact_counted_keys(tags text[], custom_fields jsonb) returns text[]
  language sql immutable parallel safe
  as $$ select contact_filter_key_texts(tags, custom_fields) || '{#}'::text[] $$;

create function contact_search_text(name text, email text, phone text, phone_raw text) returns text
  language sql immutable parallel safe
  as $$ select lower(name || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(phone_raw, '')) $$;

create function contact_counts_maintain() returns trigger
  language plpgsql
  as $$
begin
  if tg_op = 'INSERT' then
    insert into contact_search (contact_id, user_id, account_id, search)
      select n.id, n.user_id, n.account_id, contact_search_text(n.name, n.email, n.phone, n.phone_raw) from new_rows n;
    insert into contact_key_counts (account_id, key, n)
      select n.account_id, k, count(*) from new_rows n, unnest(contact_counted_keys(n.tags, n.custom_fields)) k
      group by 1, 2 order by 1, 2
      on conflict (account_id, key) do update set n = contact_key_counts.n + excluded.n;
  elsif tg_op = 'UPDATE' then
    -- A full sync rewrites every contact with the same values: only real changes cost a write.
    update contact_search s
      set user_id = n.user_id, account_id = n.account_id, search = contact_search_text(n.name, n.email, n.phone, n.phone_raw)
      from new_rows n join old_rows o on o.id = n.id
      where s.contact_id = n.id
        and (o.user_id, o.account_id, o.name, o.email, o.phone, o.phone_raw)
            is distinct from (n.user_id, n.account_id, n.name, n.email, n.phone, n.phone_raw);
    insert into contact_key_counts (account_id, key, n)
      select account_id, k, sum(d) from (
        select n.account_id, k, 1 as d
          from new_rows n join old_rows o on o.id = n.id, unnest(contact_counted_keys(n.tags, n.custom_fields)) k
          where (o.account_id, o.tags, o.custom_fields) is distinct from (n.account_id, n.tags, n.custom_fields)
        union all
        select o.account_id, k, -1
          from new_rows n join old_rows o on o.id = n.id, unnest(contact_counted_keys(o.tags, o.custom_fields)) k
          where (o.account_id, o.tags, o.custom_fields) is distinct from (n.account_id, n.tags, n.custom_fields)
      ) d group by 1, 2 having sum(d) <> 0 order by 1, 2
      on conflict (account_id, key) do update set n = contact_key_counts.n + excluded.n;
  else
    -- contact_search rows go with their contact (foreign key). Deleting an account cascades here
    -- after the account is gone: its counts went with it and must not be written again. An upsert
    -- in key order, like the branches above, so concurrent writers lock rows in one order.
    insert into contact_key_counts (account_id, key, n)
      select o.account_id, k, -count(*) from old_rows o, unnest(contact_counted_keys(o.tags, o.custom_fields)) k
      where exists (select 1 from kommo_accounts a where a.id = o.account_id)
      group by 1, 2 order by 1, 2
      on conflict (account_id, key) do update set n = contact_key_counts.n + excluded.n;
  end if;
  return null;
end $$;

create trigger contacts_counts_insert after insert on contacts
  referencing new table as new_rows for each statement execute function contact_counts_maintain();
create trigger contacts_counts_update after update on contacts
  referencing old table as old_rows new table as new_rows for each statement execute function contact_counts_maintain();
create trigger contacts_counts_delete after delete on contacts
  referencing old table as old_rows for each statement execute function contact_counts_maintain();

-- Contacts stored before this migration.
insert into contact_search (contact_id, user_id, account_id, search)
  select id, user_id, account_id, contact_search_text(name, email, phone, phone_raw) from contacts;
insert into contact_key_counts (account_id, key, n)
  select c.account_id, k, count(*) from contacts c, unnest(contact_counted_keys(c.tags, c.custom_fields)) k group by 1, 2;
-- Built after the copy: one sort instead of a million index insertions.
create index contact_search_account_idx on contact_search (account_id);
create index contact_search_trgm on contact_search using gin (search gin_trgm_ops);
