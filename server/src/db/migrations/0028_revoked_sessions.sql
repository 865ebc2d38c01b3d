-- "Cerrar Sesión" ends one session, not all of them. Each signed-out token is remembered here by
-- its SHA-256 until it would have expired anyway (7 days at most), and refused until then.
-- "Cerrar sesión en todos los dispositivos" and a password change still move users.token_version
-- on, which ends every token at once and makes this user's rows here redundant.
-- A new, empty table: nothing existing is rewritten, and tokens issued before stay valid.
create table if not exists revoked_sessions (
  token_hash text primary key,
  user_id integer not null references users (id) on delete cascade,
  expires_at timestamptz not null
);
-- Expired rows are pruned by expiry; the cascade of a deleted user finds its rows by user.
create index if not exists revoked_sessions_expires_idx on revoked_sessions (expires_at);
create index if not exists revoked_sessions_user_idx on revoked_sessions (user_id);
