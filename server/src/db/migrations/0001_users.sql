-- Trigram search over names, phones and emails of contacts.
create extension if not exists pg_trgm;

create table users (
  id integer generated always as identity primary key,
  email text not null,
  password_hash text not null,
  first_name text not null default '',
  last_name text not null default '',
  created_at timestamptz not null default now()
);
-- Emails are unique regardless of case.
create unique index users_email_lower_key on users (lower(email));
