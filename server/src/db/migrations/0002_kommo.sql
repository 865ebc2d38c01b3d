create table kommo_accounts (
  id integer generated always as identity primary key,
  user_id integer not null references users(id) on delete cascade,
  subdomain text not null,
  access_token_enc text not null,
  phone_field_id integer not null,
  -- Kommo account country (ISO 3166 alpha-2): the region for phones typed in national format.
  country text,
  sync_status text not null default 'idle' check (sync_status in ('idle', 'syncing', 'synced', 'error')),
  sync_total_contacts integer not null default 0,
  sync_progress_contacts integer not null default 0,
  last_sync_at timestamptz,
  sync_error_message text,
  -- A running sync is leased by one process; an expired lease means its process died.
  sync_lease_owner text,
  sync_lease_expires_at timestamptz,
  -- Where a running sync is (mode, next page, generation), so a restart resumes it.
  sync_state jsonb,
  -- Highest Kommo updated_at fully synced: the start of the next incremental sync.
  sync_watermark bigint,
  sync_generation integer not null default 0,
  -- When the last full sync (the one that also removes deleted contacts) finished.
  sync_full_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- The sync runner looks for accounts waiting to be (re)claimed.
create index kommo_accounts_syncing_idx on kommo_accounts (sync_lease_expires_at) where sync_status = 'syncing';
create unique index kommo_accounts_user_subdomain_key on kommo_accounts (user_id, subdomain);

create table kommo_custom_fields (
  account_id integer not null references kommo_accounts(id) on delete cascade,
  user_id integer not null references users(id) on delete cascade,
  field_id bigint not null,
  name text not null,
  type text not null,
  code text,
  primary key (account_id, field_id)
);

create table contacts (
  id bigint generated always as identity primary key,
  user_id integer not null references users(id) on delete cascade,
  account_id integer not null references kommo_accounts(id) on delete cascade,
  kommo_id bigint not null,
  name text not null default '',
  first_name text not null default '',
  last_name text not null default '',
  -- E.164 when the raw value is a valid number, else null; phone_raw keeps what Kommo holds.
  phone text,
  phone_raw text,
  email text,
  tags text[] not null default '{}',
  -- Custom field values by field name (text), as the filters address them.
  custom_fields jsonb not null default '{}',
  kommo_updated_at bigint not null default 0,
  -- The sync generation that last saw this contact; a full sync deletes older ones.
  sync_generation integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index contacts_account_kommo_key on contacts (account_id, kommo_id);
create index contacts_account_idx on contacts (account_id, id);
-- Indexes of the filter engine (server/src/services/contacts/filter-engine.ts):
-- tags AND / OR (@> / &&);
create index contacts_tags_gin on contacts using gin (tags);
-- custom field "specific values" (@>) and "exists" (?): jsonb_ops supports both operators;
create index contacts_custom_fields_gin on contacts using gin (custom_fields);
-- free-text search over name, email and phones; the expression must equal SEARCH_TEXT;
create index contacts_search_trgm on contacts using gin (
  (name || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || coalesce(phone_raw, '')) gin_trgm_ops);
-- custom field "text contains": a trigram pre-filter over the whole document.
create index contacts_custom_fields_trgm on contacts using gin ((custom_fields::text) gin_trgm_ops);

-- Counting a large match (a common tag, a field most contacts have) on the wide contacts heap costs
-- a visit to nearly every page. Tag and field conditions are therefore also answered from a narrow
-- copy: per contact, the ids of its "filter keys" ('t' || tag, 'f' || field name,
-- 'v' || ["field", "value"]), numbered per account in contact_filter_keys. A trigger keeps both in
-- step with contacts, whoever writes them; the filter engine counts tag/field-only filters here.
create table contact_filter_keys (
  id integer generated always as identity primary key,
  account_id integer not null references kommo_accounts(id) on delete cascade,
  key text not null
);
create unique index contact_filter_keys_account_key on contact_filter_keys (account_id, key);

create table contact_facets (
  contact_id bigint primary key references contacts(id) on delete cascade,
  user_id integer not null,
  account_id integer not null,
  key_ids integer[] not null
);
create index contacts_facets_key_ids_gin on contact_facets using gin (key_ids);

-- The filter keys of one contact; the engine builds the same strings for the values it looks up.
create function contact_filter_key_texts(tags text[], custom_fields jsonb) returns text[]
  language sql immutable parallel safe
  as $$ select array(
    select 't' || t from unnest(tags) t where t is not null
    union select 'f' || e.key from jsonb_each(custom_fields) e where jsonb_typeof(custom_fields) = 'object'
    union select 'v' || jsonb_build_array(e.key, e.value)::text from jsonb_each(custom_fields) e
      where jsonb_typeof(custom_fields) = 'object') $$;

create function contact_facets_sync() returns trigger
  language plpgsql
  as $$
declare
  keys text[] := contact_filter_key_texts(new.tags, new.custom_fields);
begin
  insert into contact_filter_keys (account_id, key)
    select new.account_id, k from unnest(keys) k
    on conflict (account_id, key) do nothing;
  insert into contact_facets (contact_id, user_id, account_id, key_ids)
    values (new.id, new.user_id, new.account_id, array(
      select f.id from contact_filter_keys f where f.account_id = new.account_id and f.key = any(keys) order by f.id))
    on conflict (contact_id) do update
      set user_id = excluded.user_id, account_id = excluded.account_id, key_ids = excluded.key_ids;
  return null;
end $$;

create trigger contacts_facets_insert after insert on contacts
  for each row execute function contact_facets_sync();
-- A full sync rewrites every contact's columns; only a real change needs new facets.
create trigger contacts_facets_update after update of user_id, account_id, tags, custom_fields on contacts
  for each row when ((old.user_id, old.account_id, old.tags, old.custom_fields)
                     is distinct from (new.user_id, new.account_id, new.tags, new.custom_fields))
  execute function contact_facets_sync();

-- Tag names per account, kept by the sync, so tag pickers never scan every contact.
create table contact_tags (
  account_id integer not null references kommo_accounts(id) on delete cascade,
  name text not null,
  primary key (account_id, name)
);
