-- Link clicks of marketing messages (`user_actions` marketing_messages_link_click) are applied once
-- per event: Meta retries a webhook it thinks was not received, and the same click must not grow a
-- recipient's click_count twice (services/campaigns/link-clicks.ts). The key is Meta's click_id when
-- the event carries one, else the message it names (wamid or person), its timestamp and the
-- component clicked. One row per attributed click: a small table, written off the send path.
-- Kept for the webhook inbox's retention window (engine/data-retention.ts), longer than Meta's retries.
create table if not exists link_click_events (
  id bigint generated always as identity primary key,
  recipient_id bigint not null,
  event_key text not null,
  received_at timestamptz not null default now()
);
create unique index if not exists link_click_events_key_idx on link_click_events (recipient_id, event_key);
create index if not exists link_click_events_received_idx on link_click_events (received_at, id);

-- The latest click's time of a recipient (clicked_at keeps the first). A nullable column without a
-- default: no table rewrite, and only the click apply writes it.
alter table campaign_recipients add column if not exists last_clicked_at timestamptz;

-- A split test whose arms were sent but whose successes are still too few for the z-test waits
-- longer before deciding, at most until this time (services/campaigns/split-test-decision.ts).
alter table campaigns add column if not exists split_extended_until timestamptz;

-- A number Meta restricted (services/whatsapp-accounts/number-restriction.ts): it takes no new
-- people in a several-number campaign and its lane stops; its people wait and are shown. Set by
-- Meta's account_update restriction or ban of the number's WABA (until the restriction's
-- expiration, or Meta's reinstatement), or by a send Meta refused for the number (131031 locked,
-- 131048 spam limit: one hour, then a send tries again). A few rows: no rewrite of anything large.
alter table whatsapp_accounts add column if not exists restricted_at timestamptz;
alter table whatsapp_accounts add column if not exists restricted_until timestamptz;
alter table whatsapp_accounts add column if not exists restricted_reason text;
