-- Meta's messaging limit and per-user marketing limit (issue 12, points 1 and 4).

-- The business portfolio that owns the number's WABA (Meta's owner_business_info); null when
-- Meta did not say, and then the WABA stands for it. The portfolio's messaging limit, in
-- unique recipients per moving 24 h (-1 unlimited, null unknown), and Meta's time for it
-- (a webhook older than what is stored never replaces it). Every account of one tenant on
-- one portfolio carries the same limit.
alter table whatsapp_accounts add column business_portfolio_id text;
alter table whatsapp_accounts add column daily_limit integer;
alter table whatsapp_accounts add column daily_limit_at timestamptz;

-- The unique recipients a portfolio reached, per tenant: one row per person, stamped with the
-- last time a campaign of any of its numbers claimed them. Those stamped in the last 24 h are
-- the used part of the limit.
create table portfolio_reach (
  user_id integer not null references users(id) on delete cascade,
  portfolio_id text not null,
  phone_key text not null,
  reached_at timestamptz not null,
  primary key (user_id, portfolio_id, phone_key)
);
create index portfolio_reach_window_idx on portfolio_reach (user_id, portfolio_id, reached_at);
create index portfolio_reach_age_idx on portfolio_reach (reached_at);

-- A 131049 (per-user marketing limit) defers the recipient: retried no earlier than 24 h
-- later, at most `deferred_max_attempts` more times within `deferred_window_hours` of the
-- first deferral; then failed. deferred_count counts recipients waiting so.
alter table campaigns add column deferred_count integer not null default 0;
alter table campaigns add column deferred_max_attempts integer not null default 2
  check (deferred_max_attempts between 0 and 5);
alter table campaigns add column deferred_window_hours integer not null default 72
  check (deferred_window_hours between 24 and 168);
-- Set while the campaign waits for the portfolio's daily limit: when it resumes by itself.
alter table campaigns add column limit_wait_until timestamptz;

alter table campaign_recipients drop constraint if exists campaign_recipients_status_check;
alter table campaign_recipients add constraint campaign_recipients_status_check
  check (status in ('pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped', 'unknown', 'deferred'));
alter table campaign_recipients add column deferrals integer not null default 0;
alter table campaign_recipients add column first_deferred_at timestamptz;
-- The scheduler wakes deferred recipients whose time came.
create index campaign_recipients_deferred_idx on campaign_recipients (next_attempt_at) where status = 'deferred';
