-- Campaigns, their frozen audience (one row per recipient with an explicit state), the
-- per-sender leases that keep one worker pacing each WhatsApp number, and the webhook inbox.

create table campaigns (
  id integer generated always as identity primary key,
  user_id integer not null references users(id) on delete cascade,
  name text not null,
  description text not null default '',
  status text not null default 'draft'
    check (status in ('draft', 'scheduled', 'sending', 'completed', 'paused', 'cancelled')),
  message_type text not null default 'template' check (message_type in ('text', 'template')),
  message_content text,
  kommo_account_id integer references kommo_accounts(id) on delete set null,
  whatsapp_account_id integer references whatsapp_accounts(id) on delete set null,
  template_id integer references templates(id) on delete set null,
  -- Snapshot of the template's name and language, shown even if the template goes away.
  template_name text,
  template_language text,
  -- The contact filter (contract contactFilterSchema); evaluated once, at the first start.
  filters jsonb not null default '{}',
  -- Counters are changed in the same statement as the recipient rows they count, so they
  -- are exact at every commit (see services/campaigns/recipient-transitions.ts).
  total_recipients integer not null default 0,
  -- Recipients whose message Meta accepted (sent_at set), whatever happened later.
  messages_sent integer not null default 0,
  delivered_count integer not null default 0,
  read_count integer not null default 0,
  failed_count integer not null default 0,
  skipped_count integer not null default 0,
  unknown_count integer not null default 0,
  -- Recipients not settled yet: status pending or sending. Zero while sending = completed.
  pending_count integer not null default 0,
  -- Why the engine paused the campaign (systemic error), shown to the operator.
  pause_reason text,
  scheduled_at timestamptz,
  started_at timestamptz,
  completed_at timestamptz,
  -- Set by the first start, when the filters were turned into recipient rows.
  audience_frozen_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index campaigns_user_created_idx on campaigns (user_id, created_at desc, id desc);
-- The scheduler looks for due scheduled campaigns; the sender for sending ones per number.
create index campaigns_scheduled_idx on campaigns (scheduled_at) where status = 'scheduled';
create index campaigns_sending_idx on campaigns (whatsapp_account_id) where status = 'sending';

create table campaign_recipients (
  id bigint generated always as identity primary key,
  campaign_id integer not null references campaigns(id) on delete cascade,
  -- The owner, as on every owned table (equal to the campaign's user).
  user_id integer not null references users(id) on delete cascade,
  -- A soft reference: a contact deleted by a later sync keeps its frozen recipient row (a
  -- foreign key would make every contact delete scan this table).
  contact_id bigint,
  -- E.164 as frozen; null when the contact had no valid phone (then status is skipped).
  phone text,
  -- Canonical digits (lib/phone.ts phoneKey): one message per person whatever the format
  -- (+54 9 … and +54 …); null on skipped rows so they never collide.
  phone_key text,
  -- pending → sending (intent committed before the request) → sent → delivered → read;
  -- failed, skipped and unknown (request outcome lost) are the other settled states.
  status text not null default 'pending'
    check (status in ('pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped', 'unknown')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  -- Who committed the intent to send, and when: a row stuck in sending past the grace
  -- period belongs to a dead process or a lost response and becomes unknown.
  claimed_at timestamptz,
  claim_owner text,
  wamid text,
  error_code integer,
  error_message text,
  sent_at timestamptz,
  delivered_at timestamptz,
  read_at timestamptz,
  failed_at timestamptz
);
create unique index campaign_recipients_campaign_phone_key on campaign_recipients (campaign_id, phone_key);
-- Claiming: the next due pending rows of one campaign.
create index campaign_recipients_claim_idx on campaign_recipients (campaign_id, next_attempt_at, id)
  where status = 'pending';
-- Recovery: rows in flight, oldest first.
create index campaign_recipients_in_flight_idx on campaign_recipients (claimed_at) where status = 'sending';
-- Webhooks without our callback data are matched by Meta's message id.
create index campaign_recipients_wamid_idx on campaign_recipients (wamid) where wamid is not null;
-- The recipients table of the detail screen, filtered by status.
create index campaign_recipients_campaign_status_idx on campaign_recipients (campaign_id, status, id);

-- One worker paces a WhatsApp number at a time; the lease is renewed while it sends.
create table sender_leases (
  whatsapp_account_id integer primary key references whatsapp_accounts(id) on delete cascade,
  owner text not null,
  acquired_at timestamptz not null default now(),
  renewed_at timestamptz not null default now(),
  expires_at timestamptz not null
);

-- Webhook POSTs are stored as received and answered at once; workers apply them later.
create table webhook_events (
  id bigint generated always as identity primary key,
  received_at timestamptz not null default now(),
  payload jsonb not null,
  attempts integer not null default 0,
  process_after timestamptz not null default now(),
  last_error text
);
create index webhook_events_queue_idx on webhook_events (process_after, id);
