-- Two-person approval: a start or schedule that needs another member's approval leaves the
-- campaign in 'pending_approval' (it sends nothing) with one request row below. The request keeps
-- what was asked to be approved (the snapshot: number, template, mapping, audience, schedule,
-- hours) with the pre-flight's `attempted` and cost, so an edit since, or an audience that grew,
-- is detected instead of sending something nobody approved.
alter table campaigns drop constraint if exists campaigns_status_check;
alter table campaigns add constraint campaigns_status_check
  check (status in ('draft', 'scheduled', 'sending', 'completed', 'paused', 'cancelled', 'pending_approval'));

create table campaign_approvals (
  id integer generated always as identity primary key,
  -- The organisation (tenant tables call it user_id).
  user_id integer not null references users(id) on delete cascade,
  campaign_id integer not null references campaigns(id) on delete cascade,
  -- 'start': approve = send now; 'schedule': approve = scheduled at the campaign's time.
  kind text not null check (kind in ('start', 'schedule')),
  requested_by integer references users(id) on delete set null,
  requested_at timestamptz not null default now(),
  snapshot jsonb not null,
  attempted integer not null,
  cost_usd numeric(14, 4),
  expires_at timestamptz not null,
  -- Null while pending.
  decision text check (decision in ('approved', 'rejected', 'expired', 'voided')),
  decided_by integer references users(id) on delete set null,
  decided_at timestamptz,
  -- The approver's optional note, or the rejection's (required) reason, or why it was voided.
  note text,
  -- An approval is spent by the start that froze the audience under it (or sent a resume).
  used_at timestamptz
);
-- At most one open request per campaign.
create unique index campaign_approvals_open_idx on campaign_approvals (campaign_id) where decision is null;
create index campaign_approvals_campaign_idx on campaign_approvals (campaign_id, id desc);
-- The expiry sweep reads the open requests by deadline.
create index campaign_approvals_expiry_idx on campaign_approvals (expires_at) where decision is null;
