-- "Prueba A/B" (split test, services/campaigns/split-test.ts). Nullable columns only: adding them
-- is a catalogue change, no table rewrite, whatever the size of campaign_recipients.
-- split_test: the variants ([{template_id, template_name, template_language}], the first being the
--   campaign's own template) and the operator's settings {share, metric, wait_seconds, no_winner};
-- split_decide_at: when the decision is due (the start + the wait);
-- split_result: the decision, once taken (set once: the decision's guard).
alter table campaigns add column if not exists split_test jsonb;
alter table campaigns add column if not exists split_decide_at timestamptz;
alter table campaigns add column if not exists split_result jsonb;
-- The recipient's arm (0 = A … 3 = D). Null outside a split test, and for the rest of a split
-- test's audience until the decision gives them the winner (the claim skips them meanwhile).
alter table campaign_recipients add column if not exists variant smallint;
-- The decision job finds its due campaigns without reading every campaign.
create index if not exists campaigns_split_due_idx on campaigns (split_decide_at)
  where split_test is not null and split_result is null;
