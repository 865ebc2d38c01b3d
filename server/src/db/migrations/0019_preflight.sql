-- Issue 13, pre-flight and frequency cap. A tenant may cap the marketing messages one person
-- (phone key) receives: at most max_messages in `days` days. No row = no cap (the default).
create table if not exists frequency_caps (
  user_id integer primary key references users(id) on delete cascade,
  max_messages integer not null check (max_messages between 1 and 100),
  days integer not null check (days between 1 and 90),
  updated_at timestamptz not null default now()
);

-- The cap counts a person's sent messages of the last days: by tenant and phone key, newest first.
create index if not exists campaign_recipients_sent_key_idx
  on campaign_recipients (user_id, phone_key, sent_at) where sent_at is not null;
