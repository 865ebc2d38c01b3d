-- Issue 14, the dashboard's activity chart: a tenant's sends and failures of the last days, per
-- number and day (services/dashboard/activity.ts). Without these the chart reads the whole
-- campaign_recipients table, every tenant's history included.
--
-- Sends of a tenant in a time window, covering what the chart counts of them (campaign, delivered,
-- read), so a vacuumed table answers from the index alone.
create index if not exists campaign_recipients_user_sent_idx
  on campaign_recipients (user_id, sent_at) include (campaign_id, delivered_at, read_at) where sent_at is not null;
-- Failures of a tenant in a time window; partial, so only failed rows pay for it.
create index if not exists campaign_recipients_user_failed_idx
  on campaign_recipients (user_id, failed_at) where status = 'failed';
-- A campaign's own charts (campaign-stats.ts) read its rows through campaign_recipients_campaign_phone_key.
