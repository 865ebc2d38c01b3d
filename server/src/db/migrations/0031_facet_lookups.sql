-- The facets of a contact, written by a row trigger for every contact the sync stores, looked up
-- its filter keys' ids with `account_id = $1 and key = any($2)`. PL/pgSQL caches that plan per
-- connection, and a connection whose first contacts came when the account had few keys kept a
-- plan that reads every key of the account and then filters them (8,859 keys read per contact at
-- 20,000 contacts, growing with the account): syncs three times slower on such connections. A
-- join with unnest(keys) fared no better (a hash join over the same scan). Each key is now read
-- on its own by the unique (account_id, key), the one plan an equality on a unique key gets.
create or replace function contact_facets_sync() returns trigger
  language plpgsql
  as $$
declare
  keys text[] := contact_filter_key_texts(new.tags, new.custom_fields);
  k text;
  key_id integer;
  ids integer[] := '{}';
begin
  insert into contact_filter_keys (account_id, key)
    select new.account_id, x from unnest(keys) x
    on conflict (account_id, key) do nothing;
  foreach k in array keys loop
    select f.id into key_id from contact_filter_keys f where f.account_id = new.account_id and f.key = k;
    if key_id is not null then ids := ids || key_id; end if;
  end loop;
  insert into contact_facets (contact_id, user_id, account_id, key_ids, phone_key)
    values (new.id, new.user_id, new.account_id, array(select i from unnest(ids) i order by i), new.phone_key)
    on conflict (contact_id) do update
      set user_id = excluded.user_id, account_id = excluded.account_id, key_ids = excluded.key_ids, phone_key = excluded.phone_key;
  return null;
end $$;

-- A person's row goes when its last contact leaves, which only a negative delta can cause: a page
-- of new contacts has none, and no longer compares the whole of contact_people against the page.
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
  delete from contact_people p
    where p.n <= 0
      and (p.account_id, p.phone_key) in (
        select (e ->> 0)::int, e ->> 1 from jsonb_array_elements(deltas) e where (e ->> 2)::int < 0);
$$;
