-- Rows keep who created them (campaigns since 0033): the member who connected a Kommo account
-- or a number, created a template in the console, or added a number to the blacklist. Null for
-- rows from before (their creator was the organisation's founder, whose id is the organisation's)
-- and for rows the system made (templates synced from Meta, opt-outs). Nullable columns without a
-- default: added without rewriting the tables.
alter table kommo_accounts add column created_by integer references users(id) on delete set null;
alter table whatsapp_accounts add column created_by integer references users(id) on delete set null;
alter table templates add column created_by integer references users(id) on delete set null;
alter table blacklist add column created_by integer references users(id) on delete set null;
