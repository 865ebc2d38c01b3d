-- Issue 14, write-back to Kommo: after a campaign, a note on each person's Kommo contact
-- ("Campaña {nombre}: entregado / leído / falló (motivo) / respondió"), a tag for opt-outs and
-- one for replies, and optionally a reply moves the contact's open lead to a chosen stage.
--
-- Opt-in per Kommo account. Only campaigns completed after write-back was switched on are written
-- back (switching it on never floods Kommo with notes about old campaigns).
alter table kommo_accounts add column if not exists writeback_enabled boolean not null default false;
alter table kommo_accounts add column if not exists writeback_enabled_at timestamptz;
alter table kommo_accounts add column if not exists writeback_notes boolean not null default true;
alter table kommo_accounts add column if not exists writeback_opt_out_tag text;
alter table kommo_accounts add column if not exists writeback_reply_tag text;
alter table kommo_accounts add column if not exists writeback_pipeline_id bigint;
alter table kommo_accounts add column if not exists writeback_status_id bigint;

-- One write-back per campaign: the queue's head. A worker holds its lease while it writes; a
-- write-back left by a dead process is taken over when the lease expires, and resumes from its items.
create table if not exists kommo_writebacks (
  campaign_id integer primary key references campaigns(id) on delete cascade,
  user_id integer not null references users(id) on delete cascade,
  kommo_account_id integer not null references kommo_accounts(id) on delete cascade,
  -- Replies and opt-outs that arrive until then are written back too (late events).
  late_until timestamptz not null,
  late_checked_at timestamptz,
  -- Kommo failed the whole account (401, 402, 403, 429 or 5xx past retries): the reason, retried at retry_at.
  last_error text,
  error_streak integer not null default 0,
  retry_at timestamptz,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- When the last waiting item was written (cleared when a late event adds items).
  finished_at timestamptz
);
create index if not exists kommo_writebacks_late_idx on kommo_writebacks (late_until);

-- What to write for one recipient, and how far it got. kind 'result' is the campaign's outcome
-- (note, tags, lead move); 'reply' and 'opt_out' are late events. `covers` names the events an
-- item already wrote, so a late event is written once.
-- stage: note → (note_unsure) → tags → lead → done | failed. 'note_unsure' = the notes request was
-- sent and its answer is not recorded: before sending again the worker reads the contact's notes
-- back from Kommo, so a crash between Kommo's answer and our commit never writes a note twice.
create table if not exists kommo_writeback_items (
  id bigint generated always as identity primary key,
  campaign_id integer not null references kommo_writebacks(campaign_id) on delete cascade,
  user_id integer not null references users(id) on delete cascade,
  recipient_id bigint not null,
  kommo_contact_id bigint not null,
  kind text not null,
  covers text[] not null default '{}',
  note_text text,
  tags text[] not null default '{}',
  move_lead boolean not null default false,
  stage text not null,
  note_id bigint,
  note_sent_at timestamptz,
  attempts integer not null default 0,
  error text,
  updated_at timestamptz not null default now(),
  unique (campaign_id, recipient_id, kind)
);
create index if not exists kommo_writeback_items_stage_idx on kommo_writeback_items (campaign_id, stage, id)
  where stage not in ('done', 'failed');
create index if not exists kommo_writeback_items_progress_idx on kommo_writeback_items (campaign_id, kind, stage);
