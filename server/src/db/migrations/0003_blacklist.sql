create table blacklist (
  id integer generated always as identity primary key,
  user_id integer not null references users(id) on delete cascade,
  account_id integer not null references kommo_accounts(id) on delete cascade,
  -- As the operator sees it (E.164).
  phone text not null,
  -- Canonical digits (see server/src/lib/phone.ts): equal for every format of one number.
  phone_key text not null,
  reason text,
  created_at timestamptz not null default now()
);
create unique index blacklist_account_phone_key on blacklist (account_id, phone_key);
