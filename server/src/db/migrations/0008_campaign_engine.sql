-- When the request for the current attempt actually left (claimed_at is when the intent
-- was committed). Rows claimed but still queued in memory are not in flight: recovery only
-- marks unknown what was dispatched, or what a process that lost its lease left behind.
alter table campaign_recipients add column dispatched_at timestamptz;

-- Meta's time of the last template status event applied: an older event (replayed or out
-- of order) never brings back a status a newer one replaced.
alter table templates add column status_event_at timestamptz;
