-- Issue 14, follow-up campaigns: "Nueva campaña para…" a group of another campaign's recipients
-- (did not read after N hours, read and did not reply, failed for a reason worth retrying, tapped
-- a button…). The new campaign's audience is not a filter but a frozen list of exactly those
-- contacts, taken when the follow-up is created; the pre-flight and the freeze classify that list
-- like any matched set (blacklist, opt-outs, duplicates, frequency cap still exclude).

-- 'filter' (the Kommo filter in `filters`, every campaign so far) or 'contact_list' (the rows of
-- campaign_audience_contacts). A contact list cannot be replaced by filters.
alter table campaigns add column if not exists audience_kind text not null default 'filter';
alter table campaigns drop constraint if exists campaigns_audience_kind_check;
alter table campaigns add constraint campaigns_audience_kind_check check (audience_kind in ('filter', 'contact_list'));
-- The campaign the list was taken from (kept as text in source_campaign_name if it is deleted),
-- and the group with its parameters: {"group": "unread", "hours": 24} or {"group": "tapped", "button": "Sí"}.
alter table campaigns add column if not exists source_campaign_id integer references campaigns(id) on delete set null;
alter table campaigns add column if not exists source_campaign_name text;
alter table campaigns add column if not exists source_group jsonb;

-- The frozen list: one row per contact, with the phone (and its key and BSUID) the source
-- campaign reached it at, so the follow-up goes to exactly that person.
create table if not exists campaign_audience_contacts (
  campaign_id integer not null references campaigns(id) on delete cascade,
  user_id integer not null references users(id) on delete cascade,
  contact_id bigint not null,
  phone text,
  phone_key text,
  bsuid text,
  primary key (campaign_id, contact_id)
);
