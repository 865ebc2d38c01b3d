-- Sessions are revocable: every token carries the version it was issued under, and logging
-- out or changing the password moves the version on, which invalidates every older token.
alter table users add column token_version integer not null default 0;
