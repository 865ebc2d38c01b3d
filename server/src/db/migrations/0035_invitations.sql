-- Invitations to join an organisation. The link carries 32 random bytes; only their SHA-256 is
-- kept, so a copy of the database cannot be turned into working links. A row is pending until it
-- is accepted, revoked or past `expires_at`; resending replaces `token_hash` (the old link dies).
create table invitations (
  id integer generated always as identity primary key,
  organization_id integer not null references organizations(id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'campaign_manager', 'editor', 'viewer')),
  scope_whatsapp_account_ids integer[] not null default '{}',
  scope_kommo_account_ids integer[] not null default '{}',
  invited_by integer references users(id) on delete set null,
  token_hash text not null unique,
  status text not null default 'pending' check (status in ('pending', 'accepted', 'revoked')),
  -- How the last mail went: not sent without SMTP, sending, sent, or failed (with the reason).
  mail_status text not null default 'not_sent' check (mail_status in ('not_sent', 'sending', 'sent', 'failed')),
  mail_error text,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  accepted_by integer references users(id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index invitations_org_idx on invitations (organization_id, created_at desc);
-- One pending invitation per address and organisation: inviting again means resending.
create unique index invitations_pending_email_idx on invitations (organization_id, lower(email)) where status = 'pending';
