-- Issue 14, after the send: what people did with a campaign's message.
--
-- Every inbound message Meta delivers to one of a tenant's numbers, kept once (Meta may deliver a
-- webhook twice, or out of order): its type, text, quick-reply button and time, and the campaign
-- recipient it answers when it can be attributed (context.id equal to the recipient's wamid, else
-- the last campaign message sent to that person by the same number within 72 hours).
create table if not exists inbound_messages (
  id bigint generated always as identity primary key,
  user_id integer not null references users(id) on delete cascade,
  whatsapp_account_id integer not null references whatsapp_accounts(id) on delete cascade,
  -- Meta's message id: the same message delivered twice is stored once.
  wamid text not null,
  -- Canonical digits of `from` (lib/phone.ts phoneKey); null for a username user known only by BSUID.
  from_phone_key text,
  from_bsuid text,
  -- As Meta names it: text, button, interactive, image, audio, reaction…
  type text not null,
  -- The text written, the button's text or the interactive reply's title; null for media.
  body text,
  -- A quick-reply tap's payload.
  button_payload text,
  -- `context.id`: the message this one answers, when the person used "reply".
  context_wamid text,
  -- Meta's timestamp of the message.
  sent_at timestamptz not null,
  received_at timestamptz not null default now(),
  -- Attribution (null when the message answers no campaign message).
  campaign_id integer references campaigns(id) on delete set null,
  recipient_id bigint,
  unique (whatsapp_account_id, wamid)
);
create index if not exists inbound_messages_campaign_idx on inbound_messages (campaign_id, recipient_id, sent_at)
  where campaign_id is not null;
create index if not exists inbound_messages_user_idx on inbound_messages (user_id, sent_at);

-- Per recipient: the first attributed reply, how many, the latest text, and the first quick-reply
-- button tapped (its text as shown to the person).
alter table campaign_recipients add column if not exists replied_at timestamptz;
alter table campaign_recipients add column if not exists reply_count integer not null default 0;
alter table campaign_recipients add column if not exists last_reply text;
alter table campaign_recipients add column if not exists button_tapped text;
-- Per campaign: recipients who replied at least once (kept with the other counters).
alter table campaigns add column if not exists replied_count integer not null default 0;

-- Attribution without context reads the last message sent to a person through
-- campaign_recipients_sent_key_idx (user_id, phone_key, sent_at) of 0019, scanned backwards.
