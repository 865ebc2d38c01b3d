-- An automatic campaign gives one recipient row per trigger event (lead_id set), so one person
-- may have several rows in it over time: a lead that enters the stage again past the re-entry
-- days, or another lead of the same person. The one-row-per-phone rule stays for every other
-- campaign (its audience is frozen once), as a partial unique index; the old index was read
-- only through its leading campaign_id, which campaign_recipients_campaign_status_idx serves too.
create unique index if not exists campaign_recipients_campaign_phone_once
  on campaign_recipients (campaign_id, phone_key) where lead_id is null;
drop index if exists campaign_recipients_campaign_phone_key;
