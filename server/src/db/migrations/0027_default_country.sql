-- The country national-format phones are read in, per Kommo account ("3126547882" is a
-- Colombian mobile only when the account says Colombia). Null: Kommo's own account country
-- (`country`, learned at each sync), as before. Both columns are nullable without a default, so
-- adding them rewrites nothing.
alter table kommo_accounts add column if not exists default_country text;

-- The last re-check of the stored phones with a new default country (engine/kommo-sync/
-- phone-recheck.ts): its country, progress and result, shown on the account card. The re-check
-- itself runs as a job of the sync runner (sync_state.requested = 'recheck'), so it never runs
-- beside a sync of the same account.
alter table kommo_accounts add column if not exists phone_recheck jsonb;
