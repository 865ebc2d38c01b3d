-- The activity log («Registro de actividad»): append-only, one row per thing someone (or the
-- engine, "sistema") did or was refused in an organisation. No route edits or deletes a row; only
-- the retention sweep removes rows older than the organisation's retention (365 days by default).
create table activity_log (
  id bigint generated always as identity primary key,
  organization_id integer not null references organizations(id) on delete cascade,
  at timestamptz not null default now(),
  -- Null: the engine. The name and role are kept as they were at the time.
  actor_user_id integer references users(id) on delete set null,
  actor_name text not null,
  actor_role text,
  action text not null,
  target_type text,
  target_id text,
  target_name text,
  -- { before: {...}, after: {...} } of the changed fields; never a secret.
  changes jsonb,
  detail jsonb,
  ip text,
  user_agent text,
  outcome text not null default 'done' check (outcome in ('done', 'denied')),
  reason text
);
create index activity_log_org_at_idx on activity_log (organization_id, at desc, id desc);
create index activity_log_target_idx on activity_log (organization_id, target_type, target_id, at desc);

-- Append-only also below the API: an UPDATE fails whoever runs it.
create function activity_log_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'activity_log is append-only';
end $$;
create trigger activity_log_no_update before update on activity_log
  for each row execute function activity_log_append_only();
