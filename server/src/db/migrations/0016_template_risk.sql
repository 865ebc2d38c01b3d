-- Issue 12, template risk. Meta pauses a low-quality template (FIRST_PAUSE 3 h, SECOND_PAUSE
-- 6 h, then DISABLED), flags it, and can change its category; the console keeps the detail of
-- the last status event and any category change so the operator sees them in Spanish.
alter table templates add column if not exists status_detail text;
alter table templates add column if not exists category_change jsonb;

-- Who paused a campaign: 'operator' (only the operator resumes it), 'template' (resumes by
-- itself when Meta unpauses or reinstates the template) or 'engine' (any other reason).
alter table campaigns add column if not exists pause_origin text;

-- The send answer said `message_status: held_for_quality_assessment` (Meta holds new marketing
-- templates for a while): shown as "Retenido por Meta" until a status webhook arrives.
alter table campaign_recipients add column if not exists held_at timestamptz;
create index if not exists campaign_recipients_held_idx on campaign_recipients (campaign_id) where held_at is not null;
