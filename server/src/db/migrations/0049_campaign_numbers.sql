-- Several numbers in one campaign. A campaign may send from several numbers of one
-- business portfolio (services/campaigns/campaign-numbers.ts); each person keeps one number.
--
-- The numbers of a campaign that uses more than one. No row: the campaign's one number
-- (campaigns.whatsapp_account_id), as every campaign before this migration.
create table if not exists campaign_numbers (
  campaign_id integer not null references campaigns(id) on delete cascade,
  whatsapp_account_id integer not null references whatsapp_accounts(id) on delete cascade,
  user_id integer not null,
  primary key (campaign_id, whatsapp_account_id)
);
-- A number's sender looks up the campaigns it belongs to.
create index if not exists campaign_numbers_account_idx on campaign_numbers (whatsapp_account_id, campaign_id);

-- The number a recipient is sent from, assigned when the audience is frozen (sender-lanes.ts).
-- Null: the campaign's one number, so existing rows and one-number campaigns need no rewrite.
-- Nullable without a default: a change of the catalogue only, whatever the table's size.
alter table campaign_recipients add column if not exists whatsapp_account_id integer;

-- A number's claim of a several-number campaign: its own next due pending rows. Partial, so
-- one-number campaigns (null) add nothing to it.
create index if not exists campaign_recipients_lane_idx
  on campaign_recipients (campaign_id, whatsapp_account_id, next_attempt_at, id)
  where status = 'pending' and whatsapp_account_id is not null;
