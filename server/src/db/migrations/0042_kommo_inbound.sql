-- Between full syncs, Kommo drives the console: its webhooks (POST /api/kommo-hooks/:secret)
-- and a catch-up that reads Kommo's events API and the contacts changed since its cursor, so a
-- webhook Kommo never sent (plan without webhooks, outage) is still noticed within a minute.
-- Only nullable or defaulted columns and new tables: migrates in seconds whatever the size of
-- contacts (docs/architecture/kommo.md, "Between syncs: webhooks and the catch-up").

-- The credential in the webhook's URL: 32 random bytes, base64url, made in code when the
-- account is connected (existing accounts get theirs at their first catch-up). Never returned
-- by the API. Unique, so a POST finds its account by the index alone.
alter table kommo_accounts add column if not exists hook_secret text;
create unique index if not exists kommo_accounts_hook_secret_idx on kommo_accounts (hook_secret) where hook_secret is not null;
-- «Mantener contactos al día»: contacts kept current between syncs (webhooks, else the catch-up).
alter table kommo_accounts add column if not exists keep_fresh boolean not null default true;
-- The webhook subscription in Kommo: 'subscribed', 'unavailable' (Kommo refused it: plan,
-- permissions), 'off' (unsubscribed on purpose); null: never tried. With the last error and
-- when it was last subscribed or checked.
alter table kommo_accounts add column if not exists hook_status text
  check (hook_status is null or hook_status in ('subscribed', 'unavailable', 'off'));
alter table kommo_accounts add column if not exists hook_error text;
alter table kommo_accounts add column if not exists hook_checked_at timestamptz;
alter table kommo_accounts add column if not exists hook_last_received_at timestamptz;
-- The catch-up's cursors: the unix second of the last event (and of the last changed contact)
-- taken in, with the ids already taken in at that very second, so the next read, which starts
-- at that second again, neither misses nor doubles what shares it. Moved in the transaction
-- that puts their findings into the inbox.
alter table kommo_accounts add column if not exists catchup_events_from bigint;
alter table kommo_accounts add column if not exists catchup_events_seen jsonb;
alter table kommo_accounts add column if not exists catchup_contacts_from bigint;
alter table kommo_accounts add column if not exists catchup_contacts_seen jsonb;
alter table kommo_accounts add column if not exists catchup_last_at timestamptz;
alter table kommo_accounts add column if not exists catchup_error text;

-- What Kommo told us and the worker has not applied yet: parsed webhook bodies and catch-up
-- findings, drained per account in id order. A row the worker cannot apply (a bug, not a
-- Kommo failure) keeps its error and is skipped, so it never blocks the rows behind it.
create table if not exists kommo_inbox (
  id bigserial primary key,
  account_id integer not null references kommo_accounts(id) on delete cascade,
  source text not null check (source in ('webhook', 'catchup')),
  body jsonb not null,
  received_at timestamptz not null default now(),
  failed_at timestamptz,
  error text
);
create index if not exists kommo_inbox_pending_idx on kommo_inbox (account_id, id) where failed_at is null;
create index if not exists kommo_inbox_failed_idx on kommo_inbox (failed_at) where failed_at is not null;

-- Lead moves already handed to the automation: the webhook and the catch-up report the same
-- move (same lead, stage and second), and Kommo may deliver a webhook twice. Kept 3 days.
create table if not exists kommo_lead_events_seen (
  account_id integer not null references kommo_accounts(id) on delete cascade,
  lead_id bigint not null,
  status_id bigint not null,
  at bigint not null,
  seen_at timestamptz not null default now(),
  primary key (account_id, lead_id, status_id, at)
);
create index if not exists kommo_lead_events_seen_at_idx on kommo_lead_events_seen (seen_at);
