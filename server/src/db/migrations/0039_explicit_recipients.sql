-- Campaigns with explicit recipients: the audience is a list of E.164 phones or BSUIDs given by
-- the caller (the public API), each with its own template parameters, instead of a Kommo filter.
-- Such a campaign has no Kommo account. Every change here is metadata only or a new table: a
-- nullable column without a default, a check constraint over the (small) campaigns table, and
-- indexes on the new table only, so it migrates in milliseconds at any number of recipients.

-- 'explicit': the rows of campaign_explicit_recipients are the matched set (see 0024).
alter table campaigns drop constraint if exists campaigns_audience_kind_check;
alter table campaigns add constraint campaigns_audience_kind_check
  check (audience_kind in ('filter', 'contact_list', 'explicit')) not valid;
alter table campaigns validate constraint campaigns_audience_kind_check;

-- The staged recipients of a draft, in the order they were added (`position`, from 1). `phone`
-- is the E.164 form (null for a BSUID-only recipient), `phone_key` its canonical key (the BSUID
-- itself for a BSUID), `params` the recipient's values by the console's mapping keys
-- (variable_1, variable_{name}, header_variable_1, header_media, button_0). The freeze reads
-- them through the audience classifier, like a follow-up's contact list.
create table if not exists campaign_explicit_recipients (
  campaign_id integer not null references campaigns(id) on delete cascade,
  user_id integer not null references users(id) on delete cascade,
  position bigint not null,
  phone text,
  phone_key text,
  bsuid text,
  params jsonb,
  primary key (campaign_id, position),
  constraint campaign_explicit_recipients_address_check check (phone is not null or bsuid is not null)
);

-- A recipient's own parameters, carried from the staging table to the sender (null for every
-- recipient of a filter or a follow-up: the mappings alone render those).
alter table campaign_recipients add column if not exists params jsonb;
