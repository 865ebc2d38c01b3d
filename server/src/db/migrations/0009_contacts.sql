-- Listing a user's contacts across accounts (GET /api/contacts without account_id) walks only
-- that user's rows, in id order, whatever the other tenants hold.
create index contacts_user_idx on contacts (user_id, id);

-- A per-account counter bumped by every statement that writes contacts, whoever runs it (the
-- sync, a test, an operator). Caches of derived figures (filter options, counts) are keyed by it,
-- so a cached figure is never older than the data: a changed version is a cache miss.
create table contact_data_versions (
  account_id integer primary key references kommo_accounts(id) on delete cascade,
  version bigint not null default 1
);

create function contact_data_version_bump() returns trigger
  language plpgsql
  as $$
begin
  if tg_op = 'DELETE' then
    -- Deleting an account cascades here too: its version row may already be gone, and
    -- inserting one would violate the foreign key, so deletes only bump existing rows.
    update contact_data_versions v set version = v.version + 1
      where v.account_id in (select account_id from changed_rows);
  elsif tg_op = 'UPDATE' then
    -- A contact moved to another account changes both.
    insert into contact_data_versions (account_id)
      select account_id from changed_rows union select account_id from old_rows order by 1
      on conflict (account_id) do update set version = contact_data_versions.version + 1;
  else
    insert into contact_data_versions (account_id)
      select distinct account_id from changed_rows order by 1
      on conflict (account_id) do update set version = contact_data_versions.version + 1;
  end if;
  return null;
end $$;

-- Transition tables allow one event per trigger, hence three triggers on one function.
create trigger contacts_version_insert after insert on contacts
  referencing new table as changed_rows for each statement execute function contact_data_version_bump();
create trigger contacts_version_update after update on contacts
  referencing old table as old_rows new table as changed_rows for each statement execute function contact_data_version_bump();
create trigger contacts_version_delete after delete on contacts
  referencing old table as changed_rows for each statement execute function contact_data_version_bump();

-- Accounts synced before this migration start at version 1.
insert into contact_data_versions (account_id) select id from kommo_accounts;
