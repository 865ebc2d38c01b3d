-- Issue 14, replies: a message from a username user (known only by BSUID) is attributed to the
-- last campaign message sent to that BSUID within 72 hours, read through this index backwards
-- (the phone-keyed lookup uses campaign_recipients_sent_key_idx of 0019).
create index if not exists campaign_recipients_sent_bsuid_idx
  on campaign_recipients (user_id, bsuid, sent_at) where bsuid is not null and sent_at is not null;
