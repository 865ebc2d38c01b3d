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

-- Tag names per account, kept by the sync, so tag pickers never scan every contact.
create table contact_tags (
  account_id integer not null references kommo_accounts(id) on delete cascade,
  name text not null,
  primary key (account_id, name)
);
