-- The campaign screen's cost and routes from the rollups of 0051, folded by the same job
-- (services/campaigns/campaign-rollups.ts): the detail of a campaign that is sending is read
-- every few seconds, and counting a million recipients' pricing, countries and routes took over a
-- second each time. New, empty tables and two columns with constant defaults on the small
-- campaign_rollups table: seconds on any database.

-- The delivered messages per what prices them (Meta's pricing, the country or a sample phone to
-- find it, the send day) and split-test arm: what campaign-cost.ts grouped from the recipients.
create table if not exists campaign_rollup_costs (
  campaign_id integer not null references campaign_rollups(campaign_id) on delete cascade,
  variant smallint,
  category text,
  type text,
  model text,
  country text,
  sample text,
  day text not null,
  n integer not null
);
create index if not exists campaign_rollup_costs_campaign_idx on campaign_rollup_costs (campaign_id);

-- The recipients attempted per country (or a sample phone to find it): the estimate's audience.
create table if not exists campaign_rollup_countries (
  campaign_id integer not null references campaign_rollups(campaign_id) on delete cascade,
  country text,
  sample text,
  n integer not null
);
create index if not exists campaign_rollup_countries_campaign_idx on campaign_rollup_countries (campaign_id);

-- Which route carried the campaign's messages (the Marketing Messages API or /messages), and
-- whether this fold wrote the cost tables (a rollup folded before this migration did not: it is
-- read from the recipients until its next fold, which every such rollup gets at the next pass).
alter table campaign_rollups add column if not exists routed_marketing integer not null default 0;
alter table campaign_rollups add column if not exists routed_cloud integer not null default 0;
alter table campaign_rollups add column if not exists costs_folded boolean not null default false;
update campaign_rollups set source_mark = '' where not costs_folded;

-- The dashboard reads the rollups since 0051; these two indexes served only its scans of the
-- recipients, and every status written on a sent recipient paid for the first one.
drop index if exists campaign_recipients_user_sent_idx;
drop index if exists campaign_recipients_user_failed_idx;
