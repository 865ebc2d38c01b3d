-- Marketing Messages API for WhatsApp (docs/architecture/meta-rules.md "Marketing Messages API").
-- Nullable columns without a default, or with a constant default (metadata-only): no table is
-- rewritten, whatever the number of recipients. The status check is replaced NOT VALID, as 0043
-- did, so the existing rows are not scanned.
--
-- The number: the WABA's `marketing_messages_onboarding_status` (ONBOARDED, ELIGIBLE, …) and the
-- portfolio's terms (`owner_business_info.marketing_messages_onboarding_status.status`), read on
-- test and refresh and set by the `account_update` MM_LITE_TERMS_SIGNED webhook; and the time
-- and reason Meta refused the marketing route (the number then sends by /messages until Meta
-- reports the portfolio onboarded again).
alter table whatsapp_accounts add column if not exists mm_onboarding_status text;
alter table whatsapp_accounts add column if not exists mm_terms_status text;
alter table whatsapp_accounts add column if not exists mm_checked_at timestamptz;
alter table whatsapp_accounts add column if not exists mm_fallback_at timestamptz;
alter table whatsapp_accounts add column if not exists mm_fallback_reason text;
-- A template's time-to-live (`message_send_ttl_seconds`), marketing: 12 h to 30 days.
alter table templates add column if not exists message_send_ttl_seconds integer;
-- Per recipient: the route that carried it (messages | marketing_messages), its link clicks
-- (`user_actions` marketing_messages_link_click) and the first one's time.
alter table campaign_recipients add column if not exists route text;
alter table campaign_recipients add column if not exists clicked_at timestamptz;
alter table campaign_recipients add column if not exists click_count integer not null default 0;
-- Per campaign: recipients whose message Meta reports expired ("Vencido", not failed), people
-- who clicked, and Meta's template analytics clicks (null: not read, or Meta gives none).
alter table campaigns add column if not exists expired_count integer not null default 0;
alter table campaigns add column if not exists clicked_count integer not null default 0;
alter table campaigns add column if not exists analytics_clicks integer;
alter table campaigns add column if not exists analytics_clicks_at timestamptz;
alter table campaign_recipients drop constraint if exists campaign_recipients_status_check;
alter table campaign_recipients add constraint campaign_recipients_status_check
  check (status in ('waiting', 'pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped', 'unknown', 'deferred', 'expired')) not valid;
