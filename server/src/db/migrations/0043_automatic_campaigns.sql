-- Automatic campaigns («Campaña automática»): a campaign that stays switched on and sends its
-- template each time a Kommo lead enters a stage. Every change is metadata or a new table: a
-- nullable column without a default on campaigns and on campaign_recipients, check constraints
-- added NOT VALID (enforced for new rows, no scan of existing ones), and indexes on the new
-- table only, so it migrates in milliseconds at a million recipients.

-- 'automatic': the audience is the stream of trigger events, one recipient per event.
alter table campaigns drop constraint if exists campaigns_audience_kind_check;
alter table campaigns add constraint campaigns_audience_kind_check
  check (audience_kind in ('filter', 'contact_list', 'explicit', 'automatic')) not valid;

-- The trigger of an automatic campaign (null for every other campaign):
-- { pipeline_id, status_id, on: 'enter' | 'created_in', delay_seconds, reentry_days }.
alter table campaigns add column if not exists automation_trigger jsonb;

-- 'waiting': an automatic campaign's recipient recorded from a trigger event, not due yet (its
-- due time is next_attempt_at); at the due time it becomes pending (the sender's) or skipped.
-- Existing rows all satisfy the old, narrower list, so they are not scanned again.
alter table campaign_recipients drop constraint if exists campaign_recipients_status_check;
alter table campaign_recipients add constraint campaign_recipients_status_check
  check (status in ('waiting', 'pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped', 'unknown', 'deferred')) not valid;

-- The Kommo lead an automatic campaign's recipient came from, and the lead's fields read at the
-- due time ({ name, price, custom_fields }) for the template's `lead.*` variables. Null otherwise.
alter table campaign_recipients add column if not exists lead_id bigint;
alter table campaign_recipients add column if not exists lead jsonb;

-- One row per trigger event an automatic campaign received. The unique key is the event itself:
-- Kommo retries a webhook, and the webhook and the events-API catch-up both see the same move,
-- so a repeat inserts nothing and creates no second recipient. `resolved_at` is set when the
-- event's recipient left 'waiting' (looked up in Kommo at its due time).
create table if not exists automation_events (
  id bigint generated always as identity primary key,
  campaign_id integer not null references campaigns(id) on delete cascade,
  -- The organisation (as `user_id` on every tenant table).
  user_id integer not null,
  kommo_account_id integer not null,
  lead_id bigint not null,
  pipeline_id bigint not null,
  status_id bigint not null,
  old_status_id bigint,
  kind text not null check (kind in ('enter', 'created')),
  event_at timestamptz not null,
  due_at timestamptz not null,
  source text not null check (source in ('webhook', 'catchup')),
  received_at timestamptz not null default now(),
  recipient_id bigint,
  resolved_at timestamptz,
  constraint automation_events_event_key unique (campaign_id, lead_id, status_id, event_at)
);
-- The due events not resolved yet, soonest first (the resolver's only read).
create index if not exists automation_events_due_idx on automation_events (due_at) where resolved_at is null;
