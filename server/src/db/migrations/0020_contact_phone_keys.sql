-- Issue 13, pre-flight speed. The classification (services/campaigns/audience-classifier.ts)
-- needs per contact its phone key (lib/phone.ts phoneKey of an E.164 phone: the digits, with the
-- mobile token WhatsApp ids drop folded, AR +549 and MX +521) or, without a phone, the BSUID a
-- Kommo phone field holds (lib/bsuid.ts). Stored columns computed on every write, so a count
-- over a million contacts runs no string function per row; adding them rewrites the table once.
alter table contacts
  add column phone_key text generated always as (
    case
      when phone ~ '^\+[1-9][0-9]{6,14}$' then case
        when length(phone) = 14 and left(phone, 4) in ('+549', '+521') then substr(phone, 2, 2) || substr(phone, 5)
        else substr(phone, 2) end
      when phone is null and btrim(phone_raw) ~ '^[A-Z]{2}[.](ENT[.])?[A-Za-z0-9]{1,64}$' then btrim(phone_raw)
    end) stored,
  add column bsuid text generated always as (
    case when phone is null and btrim(phone_raw) ~ '^[A-Z]{2}[.](ENT[.])?[A-Za-z0-9]{1,64}$' then btrim(phone_raw) end) stored;

-- The classification of a whole account reads this index only (no wide row), in key order.
create index contacts_people_idx on contacts (account_id, phone_key, id) include (user_id, phone, bsuid);
