-- Rollups of the charts, kept by a periodic job off the send path (engine/campaign-rollups.ts,
-- services/campaigns/campaign-rollups.ts). Nothing on campaign_recipients changes: the job finds
-- the campaigns whose recipients moved through the campaign row the writers already bump
-- (updated_at and the counters, recipient-transitions.ts), and recounts each one in its own
-- transaction. New, empty tables only: seconds on any database.

-- One row per folded campaign: the funnel, the first and last event (the timeline's span), the
-- campaign's change mark the fold saw, when it was folded and how long the fold took (a campaign
-- is folded again only after a few times that: the job's share of the database stays bounded).
create table if not exists campaign_rollups (
  campaign_id integer primary key references campaigns(id) on delete cascade,
  user_id integer not null,
  attempted integer not null default 0,
  sent integer not null default 0,
  delivered integer not null default 0,
  read integer not null default 0,
  replied integer not null default 0,
  first_at timestamptz,
  last_at timestamptz,
  source_mark text not null,
  folded_at timestamptz not null,
  fold_ms integer not null default 0
);
create index if not exists campaign_rollups_user_idx on campaign_rollups (user_id);

-- The timeline: per campaign and UTC minute, the sends, deliveries and reads at that minute.
create table if not exists campaign_rollup_minutes (
  campaign_id integer not null references campaign_rollups(campaign_id) on delete cascade,
  minute timestamptz not null,
  sent integer not null,
  delivered integer not null,
  read integer not null,
  primary key (campaign_id, minute)
);

-- The dashboard: per campaign and quarter hour (every zone's midnight is on one), the sends of
-- the quarter with how many of them were delivered and read since, and the failures of the quarter.
create table if not exists campaign_rollup_quarters (
  campaign_id integer not null references campaign_rollups(campaign_id) on delete cascade,
  user_id integer not null,
  quarter timestamptz not null,
  sent integer not null,
  delivered integer not null,
  read integer not null,
  failed integer not null,
  primary key (campaign_id, quarter)
);
create index if not exists campaign_rollup_quarters_user_idx on campaign_rollup_quarters (user_id, quarter);

-- The failures by Meta error code (null: none given), with one of their messages.
create table if not exists campaign_rollup_failures (
  campaign_id integer not null references campaign_rollups(campaign_id) on delete cascade,
  error_code integer,
  failures integer not null,
  message text
);
create index if not exists campaign_rollup_failures_campaign_idx on campaign_rollup_failures (campaign_id);

-- When the job last finished a pass over every campaign: each campaign is current as of then
-- (or of its own fold, when later).
create table if not exists campaign_rollup_passes (
  name text primary key,
  passed_at timestamptz not null
);
