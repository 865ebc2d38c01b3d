-- Issue 13, pre-flight speed at a million contacts. The pre-flight counts people (phone keys),
-- not contacts, and excludes some of them (blacklist, US marketing, frequency cap). Two narrow
-- structures let it answer without reading the wide contacts heap:
--
-- 1. contact_facets carries each contact's phone key (the stored contacts.phone_key of 0020), so
--    a filtered audience is grouped by person from the narrow table its filter already reads.
-- 2. contact_people: per account and phone key, how many contacts share it; and
--    contact_people_prefixes: per account and the key's first 4 characters (country code and the
--    start of the area code), how many people and how many contacts. "Every contact" is then
--    answered from a few thousand prefix rows plus index probes for the excluded keys.
-- Both are kept by the statement triggers below, in the same transaction as the contacts' write.

alter table contact_facets add column if not exists phone_key text;
update contact_facets f set phone_key = c.phone_key from contacts c where c.id = f.contact_id and c.phone_key is not null;

create or replace function contact_facets_sync() returns trigger
  language plpgsql
  as $$
declare
  keys text[] := contact_filter_key_texts(new.tags, new.custom_fields);
begin
  insert into contact_filter_keys (account_id, key)
    select new.account_id, k from unnest(keys) k
    on conflict (account_id, key) do nothing;
  insert into contact_facets (contact_id, user_id, account_id, key_ids, phone_key)
    values (new.id, new.user_id, new.account_id, array(
      select f.id from contact_filter_keys f where f.account_id = new.account_id and f.key = any(keys) order by f.id), new.phone_key)
    on conflict (contact_id) do update
      set user_id = excluded.user_id, account_id = excluded.account_id, key_ids = excluded.key_ids, phone_key = excluded.phone_key;
  return null;
end $$;

-- A full sync rewrites every contact's columns; only a real change (now also of the phone) needs new facets.
drop trigger if exists contacts_facets_update on contacts;
create trigger contacts_facets_update after update of user_id, account_id, tags, custom_fields, phone, phone_raw on contacts
  for each row when ((old.user_id, old.account_id, old.tags, old.custom_fields, old.phone_key)
                     is distinct from (new.user_id, new.account_id, new.tags, new.custom_fields, new.phone_key))
  execute function contact_facets_sync();

create table if not exists contact_people (
  account_id integer not null references kommo_accounts(id) on delete cascade,
  phone_key text not null,
  -- Contacts of the account with this key; 0 once the last one left (the row is then removed).
  n integer not null,
  primary key (account_id, phone_key)
);

create table if not exists contact_people_prefixes (
  account_id integer not null references kommo_accounts(id) on delete cascade,
  prefix text not null,
  -- People (keys with at least one contact) and contacts whose key starts with the prefix.
  people integer not null,
  contacts integer not null,
  primary key (account_id, prefix)
);

-- Applies per (account, key) contact deltas: contact_people by key, and the prefixes by how many
-- keys appeared or vanished. Upserts in key order, like 0010, so concurrent writers lock rows in
-- one order. An account being deleted is skipped (its rows went with it).
create or replace function contact_people_apply(deltas jsonb) returns void
  language sql
  as $$
  with d as (
    select (e ->> 0)::int as account_id, e ->> 1 as phone_key, (e ->> 2)::int as delta
    from jsonb_array_elements(deltas) e
    where exists (select 1 from kommo_accounts a where a.id = (e ->> 0)::int)
  ),
  up as (
    insert into contact_people as p (account_id, phone_key, n)
      select account_id, phone_key, delta from d order by 1, 2
      on conflict (account_id, phone_key) do update set n = p.n + excluded.n
      returning p.account_id, p.phone_key, p.n
  ),
  moved as (
    select up.account_id, left(up.phone_key, 4) as prefix,
      sum(case when up.n > 0 and up.n - d.delta <= 0 then 1 when up.n <= 0 and up.n - d.delta > 0 then -1 else 0 end)::int as people,
      sum(d.delta)::int as contacts
    from up join d on d.account_id = up.account_id and d.phone_key = up.phone_key
    group by 1, 2
  )
  insert into contact_people_prefixes as q (account_id, prefix, people, contacts)
    select account_id, prefix, people, contacts from moved order by 1, 2
    on conflict (account_id, prefix) do update set people = q.people + excluded.people, contacts = q.contacts + excluded.contacts;
  delete from contact_people p using jsonb_array_elements(deltas) e
    where p.account_id = (e ->> 0)::int and p.phone_key = e ->> 1 and p.n <= 0;
$$;

create or replace function contact_people_maintain() returns trigger
  language plpgsql
  as $$
declare
  deltas jsonb;
begin
  if tg_op = 'INSERT' then
    select jsonb_agg(jsonb_build_array(account_id, phone_key, n) order by account_id, phone_key) into deltas
      from (select account_id, phone_key, count(*) as n from new_rows where phone_key is not null group by 1, 2) x;
  elsif tg_op = 'UPDATE' then
    -- A full sync rewrites identical rows: only a changed key or account moves a person.
    select jsonb_agg(jsonb_build_array(account_id, phone_key, n) order by account_id, phone_key) into deltas
      from (select account_id, phone_key, sum(d) as n from (
          select n.account_id, n.phone_key, 1 as d from new_rows n join old_rows o on o.id = n.id
            where n.phone_key is not null and (o.account_id, o.phone_key) is distinct from (n.account_id, n.phone_key)
          union all
          select o.account_id, o.phone_key, -1 from new_rows n join old_rows o on o.id = n.id
            where o.phone_key is not null and (o.account_id, o.phone_key) is distinct from (n.account_id, n.phone_key)
        ) x group by 1, 2 having sum(d) <> 0) y;
  else
    select jsonb_agg(jsonb_build_array(account_id, phone_key, n) order by account_id, phone_key) into deltas
      from (select account_id, phone_key, -count(*) as n from old_rows where phone_key is not null group by 1, 2) x;
  end if;
  if deltas is not null then perform contact_people_apply(deltas); end if;
  return null;
end $$;

create trigger contacts_people_insert after insert on contacts
  referencing new table as new_rows for each statement execute function contact_people_maintain();
create trigger contacts_people_update after update on contacts
  referencing old table as old_rows new table as new_rows for each statement execute function contact_people_maintain();
create trigger contacts_people_delete after delete on contacts
  referencing old table as old_rows for each statement execute function contact_people_maintain();

-- Contacts stored before this migration.
insert into contact_people (account_id, phone_key, n)
  select account_id, phone_key, count(*) from contacts where phone_key is not null group by 1, 2;
insert into contact_people_prefixes (account_id, prefix, people, contacts)
  select account_id, left(phone_key, 4), count(*), sum(n) from contact_people group by 1, 2;
