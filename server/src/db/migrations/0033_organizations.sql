-- Organisations become the tenant. Every tenant-owned row already carries the id of the user who
-- signed up (its `user_id` column); that id becomes the id of the organisation the user founds,
-- so no tenant row is rewritten: the migration only adds two small tables and nullable columns,
-- and runs in the same time at a million contacts as at none.
--
-- From now on `user_id` on a tenant table means "the organisation", and an organisation's id is
-- always its founder's user id (a sign-up creates both with the same number). Tenant rows keep
-- their foreign key to users(id) through that id.
create table organizations (
  id integer primary key,
  name text not null,
  -- Two-person approval: off, above N recipients, above US$ X, or always.
  approval_mode text not null default 'off' check (approval_mode in ('off', 'recipients', 'cost', 'always')),
  approval_min_recipients integer,
  approval_min_cost_usd numeric(14, 2),
  activity_retention_days integer not null default 365,
  created_at timestamptz not null default now()
);

create table organization_members (
  organization_id integer not null references organizations(id) on delete cascade,
  user_id integer not null references users(id) on delete cascade,
  role text not null check (role in ('owner', 'admin', 'campaign_manager', 'editor', 'viewer')),
  -- Empty means every number / every Kommo account the role allows.
  scope_whatsapp_account_ids integer[] not null default '{}',
  scope_kommo_account_ids integer[] not null default '{}',
  -- Moved on every change of role or scope and on removal: tokens carrying an older version
  -- (sessions in this organisation) are refused at once; the user's other organisations are not.
  session_version integer not null default 0,
  created_at timestamptz not null default now(),
  primary key (organization_id, user_id)
);
create index organization_members_user_idx on organization_members (user_id);

insert into organizations (id, name, created_at)
select id, coalesce(nullif(trim(first_name || ' ' || last_name), ''), email), created_at from users;

insert into organization_members (organization_id, user_id, role, created_at)
select id, id, 'owner', created_at from users;

-- Who created a campaign (its organisation is `user_id`). Rows from before keep null: their
-- creator was the organisation's founder, whose id is the organisation's.
alter table campaigns add column created_by integer references users(id) on delete set null;
