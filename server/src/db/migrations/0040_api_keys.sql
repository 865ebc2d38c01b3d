-- API keys for other systems, the answers of idempotent public-API calls, and the per-key
-- request windows shared by every API process. New tables and one nullable column: nothing
-- existing is rewritten.

-- A key belongs to an organisation and acts with its creator's role at most. Only the SHA-256 of
-- the key is kept (with its first characters, to recognise it in the list).
create table api_keys (
  id integer generated always as identity primary key,
  organization_id integer not null references organizations(id) on delete cascade,
  created_by integer references users(id) on delete set null,
  name text not null,
  key_hash text not null unique,
  start text not null,
  scopes text[] not null,
  -- Empty: every number the creator may use.
  whatsapp_account_ids integer[] not null default '{}',
  rate_limit_per_minute integer not null default 120 check (rate_limit_per_minute between 1 and 10000),
  expires_at timestamptz,
  last_used_at timestamptz,
  last_used_ip text,
  revoked_at timestamptz,
  revoked_by integer references users(id) on delete set null,
  created_at timestamptz not null default now()
);
create index api_keys_org_idx on api_keys (organization_id, created_at desc);

-- The first answer to a POST with an `Idempotency-Key`, per API key, kept 24 h. A row without
-- `status_code` is a call still running: a concurrent retry waits for it instead of acting twice.
create table api_idempotency_keys (
  api_key_id integer not null references api_keys(id) on delete cascade,
  key text not null,
  request_hash text not null,
  status_code integer,
  content_type text,
  body text,
  created_at timestamptz not null default now(),
  primary key (api_key_id, key)
);
create index api_idempotency_keys_created_idx on api_idempotency_keys (created_at);

-- Fixed one-minute windows of requests per key (the public API's rate limit), one row per key.
-- Unlogged: a window is worth nothing after a crash, and each request's count then costs no
-- write-ahead-log flush.
create unlogged table api_rate_windows (
  key text primary key,
  hits integer not null,
  resets_at timestamptz not null
);

-- The activity log names the key an action was made with ("clave «nombre»"). No foreign key:
-- the log is append-only (0034), so no key removal may ever update an entry.
alter table activity_log add column actor_api_key_id integer;
