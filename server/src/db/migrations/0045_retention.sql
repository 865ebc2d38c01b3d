-- Retention (engine/data-retention.ts, docs/OPERATIONS.md "Retention"): a daily job deletes rows
-- past their window in statements of 5,000, each reading the next rows past the last one it
-- read, oldest first, through an index on the time column. Two tables lacked one:
--
-- meta_events had only (waba_id, id).
create index if not exists meta_events_received_idx on meta_events (received_at, id);
-- kommo_writeback_items: the items the write-back has finished with, by when they finished.
-- Partial: items still to write are not in it.
create index if not exists kommo_writeback_items_finished_idx on kommo_writeback_items (updated_at, id)
  where stage in ('done', 'failed');
-- The others have theirs: inbound_messages_user_idx (user_id, sent_at), webhook_events_queue_idx
-- (process_after, id), kommo_inbox_failed_idx (failed_at).
--
-- Plain CREATE INDEX: migrations run in one transaction, where CONCURRENTLY is not allowed. Each
-- blocks writes to its own table (not reads, not other tables) while it builds: 0.7 to 1.5 s per
-- million rows on PostgreSQL (bench/retention.bench.ts). The sender writes neither table; the
-- webhook inbox and the write-back wait that long.
