-- Issue 12 (points 5, 7, 8): every webhook Meta sends is read; opt-outs know where they came
-- from; a person can be known by a business-scoped user id (BSUID, "US.1349…") beside the phone.

-- Where a blacklist entry / opt-out came from: 'manual' (the operator), 'keyword' (BAJA, STOP…
-- written to the number), 'button' (a quick-reply «Baja»), 'meta_marketing' (the person stopped
-- marketing messages in WhatsApp: user_preferences stop, or error 131050). A reversal removes
-- only entries of its own origin (ALTA → keyword, user_preferences resume → meta_marketing).
alter table blacklist add column if not exists origin text not null default 'manual';
alter table blacklist add column if not exists bsuid text;
update blacklist set origin = 'keyword' where reason like 'Baja solicitada por WhatsApp%';
create index if not exists blacklist_bsuid_idx on blacklist (user_id, bsuid) where bsuid is not null;

alter table opt_outs add column if not exists origin text not null default 'keyword';
alter table opt_outs add column if not exists bsuid text;
create index if not exists opt_outs_bsuid_idx on opt_outs (user_id, bsuid) where bsuid is not null;

-- What Meta reports it charges for each message (status webhook `pricing`), and the BSUID the
-- recipient was sent to or reported with.
alter table campaign_recipients add column if not exists pricing_category text;
alter table campaign_recipients add column if not exists pricing_type text;
alter table campaign_recipients add column if not exists pricing_model text;
alter table campaign_recipients add column if not exists bsuid text;

-- BSUIDs learned from webhooks that carry both the phone and the user id, per tenant. Kept apart
-- from contacts so a Kommo sync never overwrites them.
create table if not exists contact_bsuids (
  user_id integer not null references users(id) on delete cascade,
  phone_key text not null,
  bsuid text not null,
  learned_at timestamptz not null default now(),
  primary key (user_id, phone_key)
);
create index if not exists contact_bsuids_bsuid_idx on contact_bsuids (user_id, bsuid);

-- Every webhook change other than statuses and inbound messages, kept as Meta sent it (account
-- updates, quality, capability, preferences, template category/quality…), plus odd ones (unknown
-- fields, value-level errors, statuses of messages we do not know). Tenant-scoped through the
-- WABA: a tenant sees the events of the WABAs of its verified WhatsApp accounts.
create table if not exists meta_events (
  id bigint generated always as identity primary key,
  waba_id text not null,
  field text not null,
  phone_number_id text,
  value jsonb not null,
  event_at timestamptz,
  received_at timestamptz not null default now()
);
create index if not exists meta_events_waba_idx on meta_events (waba_id, id);
