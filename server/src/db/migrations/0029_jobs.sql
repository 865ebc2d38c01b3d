-- The durable job runner (server/src/jobs/): one loop for every background job except the
-- campaign sender. New queues (outbound webhook deliveries, Kommo automation events, invitation
-- mail) keep their jobs here; the Kommo sync and the write-back keep theirs in their own rows
-- (kommo_accounts.sync_*, kommo_writebacks), which the runner leases the same way.
create table if not exists jobs (
  id bigserial primary key,
  queue text not null,
  payload jsonb not null default '{}'::jsonb,
  -- At most one running job per (queue, key) across processes (one per Kommo account, say).
  key text,
  -- At most one waiting or running job per (queue, dedupe_key): enqueueing it again is a no-op.
  dedupe_key text,
  state text not null default 'waiting' check (state in ('waiting', 'done', 'failed')),
  run_at timestamptz not null default now(),
  -- Failed runs so far; the queue's retry schedule sets run_at after each one.
  attempts integer not null default 0,
  last_error text,
  lease_owner text,
  lease_expires_at timestamptz,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
-- The claim reads only waiting jobs, oldest due first.
create index if not exists jobs_due_idx on jobs (queue, run_at) where state = 'waiting';
create index if not exists jobs_key_idx on jobs (queue, key) where state = 'waiting' and key is not null;
create unique index if not exists jobs_dedupe_idx on jobs (queue, dedupe_key) where state = 'waiting' and dedupe_key is not null;
create index if not exists jobs_finished_idx on jobs (finished_at) where state <> 'waiting';

-- Periodic jobs: one row each. A process runs one when it is due by leasing its row, so a
-- periodic job runs once per period across all processes, and a dead holder's turn is taken over.
create table if not exists job_schedules (
  name text primary key,
  next_run_at timestamptz not null default now(),
  lease_owner text,
  lease_expires_at timestamptz,
  last_run_at timestamptz,
  last_error text
);
