-- Freezing a million recipients (services/campaigns/freeze-audience.ts) writes them in one
-- statement. Two costs of that statement are removed here (docs/SCALING.md "Freeze").
--
-- 1. The foreign key campaign_recipients.campaign_id -> campaigns checked every inserted row
--    (a million probes of campaigns_pkey, about a third of the freeze). Every writer of recipient
--    rows holds its campaign's row (the start, explicit batches, automatic events), so the check
--    guards nothing the writers do not. What the key also did, deleting a campaign's recipients
--    with it (directly, or through a deleted number, account or organisation), is done by one
--    statement trigger per deleted set of campaigns.
create or replace function campaigns_delete_recipients() returns trigger
  language plpgsql
  as $$
begin
  delete from campaign_recipients r using gone g where r.campaign_id = g.id;
  return null;
end $$;

drop trigger if exists campaigns_delete_recipients on campaigns;
create trigger campaigns_delete_recipients after delete on campaigns
  referencing old table as gone for each statement execute function campaigns_delete_recipients();

alter table campaign_recipients drop constraint if exists campaign_recipients_campaign_id_fkey;

-- 2. The freeze finds the phone keys that more than one matched contact holds (only the first is
--    attempted). Hashing a million keys to find the few repeated ones was the other third; the
--    keys an account's contacts share are in contact_people (0026, kept by the contacts' own
--    statement triggers), and only those few need a look. Partial: most keys are held once.
--    Built in one pass over contact_people (about a second per million people).
create index if not exists contact_people_shared_idx on contact_people (account_id, phone_key) where n > 1;
