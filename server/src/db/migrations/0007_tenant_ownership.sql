-- Which tenant a Meta number belongs to is proven, not typed: a WhatsApp account is routed
-- inbound messages and template events only once Meta confirmed, with the account's own token,
-- that the number belongs to the account's WABA. One verified account per Meta number, so two
-- tenants can neither share a number's opt-outs nor double its sending rate.
alter table whatsapp_accounts add column owner_verified_at timestamptz;
create unique index whatsapp_accounts_verified_number_key on whatsapp_accounts (phone_number_id)
  where owner_verified_at is not null;
create index whatsapp_accounts_waba_idx on whatsapp_accounts (business_account_id);

-- Opt-outs belong to the tenant and the person, not to a Kommo account: every campaign of the
-- tenant honours them whatever its Kommo account, and deleting a Kommo account keeps them.
create table opt_outs (
  user_id integer not null references users(id) on delete cascade,
  -- Canonical digits (lib/phone.ts phoneKey).
  phone_key text not null,
  phone text not null,
  whatsapp_account_id integer references whatsapp_accounts(id) on delete set null,
  word text not null,
  created_at timestamptz not null default now(),
  primary key (user_id, phone_key)
);
