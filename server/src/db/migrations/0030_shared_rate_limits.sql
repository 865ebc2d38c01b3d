-- Rate limits shared by every process of a deployment, kept in the database instead of in each
-- process's memory: with several API or worker processes, per-process limits add up.
--
-- 1. kommo_rate_windows: Kommo allows KOMMO_RPS requests per account in any 1-second window.
--    A row per Kommo account (its base URL and subdomain) holds one anchor per request of the
--    window (KOMMO_RPS of them): when the request's answer came, the latest it can have reached
--    Kommo; while it is in flight, the latest it may still arrive (its slot plus a hold). A new
--    request takes the entry with the oldest anchor and may start one window after it, so each
--    entry is a chain of requests at least a window apart and no window ever holds more than
--    KOMMO_RPS. The row is locked only for the few microseconds of kommo_rate_reserve.
create table if not exists kommo_rate_windows (
  account_key text primary key,
  anchors timestamptz[] not null,
  -- After a 429: nobody of any process starts before then.
  paused_until timestamptz,
  -- The last reservation. Not indexed: every request updates the row, which then stays a HOT
  -- update; the rare sweep below reads the small table whole.
  updated_at timestamptz not null default now()
);

-- One call per request. Answers the entry taken, the anchor written in it (handed back by
-- kommo_rate_answered) and the slot, the time from which the request may be sent; or, when every
-- entry is still in flight, no entry: ask again later. Always the database's time of the call
-- (db_ms): times are the database's clock, so processes on different hosts agree.
create or replace function kommo_rate_reserve(p_key text, p_slots integer, p_window_ms double precision, p_hold_ms double precision)
  returns table (entry integer, anchor text, slot_ms double precision, db_ms double precision)
  language plpgsql
  as $$
declare
  cur timestamptz[];
  paused timestamptz;
  t timestamptz;
  oldest timestamptz;
  i integer;
  slot timestamptz;
begin
  insert into kommo_rate_windows (account_key, anchors) values (p_key, array_fill('-infinity'::timestamptz, array[p_slots]))
    on conflict (account_key) do nothing;
  if found then
    -- Anyone can name a subdomain ("Obtener Campos"): each new account removes two idle for an
    -- hour (their every anchor is long past), so the table holds the accounts in use.
    delete from kommo_rate_windows where account_key in (
      select w.account_key from kommo_rate_windows w where w.updated_at < clock_timestamp() - interval '1 hour'
      order by w.updated_at limit 2 for update skip locked);
  end if;
  select w.anchors, w.paused_until into cur, paused from kommo_rate_windows w where w.account_key = p_key for update;
  t := clock_timestamp();
  db_ms := extract(epoch from t) * 1000;
  if cardinality(cur) <> p_slots then
    -- KOMMO_RPS changed: keep the latest anchors.
    cur := array(select a from unnest(cur) a order by a desc limit p_slots)
      || array_fill('-infinity'::timestamptz, array[greatest(0, p_slots - cardinality(cur))]);
  end if;
  select u.a, u.n::integer into oldest, i from unnest(cur) with ordinality u(a, n) order by u.a, u.n limit 1;
  if oldest > t then
    return next;
    return;
  end if;
  slot := greatest(t, coalesce(paused, t), oldest + make_interval(secs => p_window_ms / 1000));
  cur[i] := slot + make_interval(secs => p_hold_ms / 1000);
  update kommo_rate_windows w set anchors = cur, updated_at = t where w.account_key = p_key;
  entry := i;
  anchor := cur[i]::text;
  slot_ms := extract(epoch from slot) * 1000;
  return next;
end $$;

-- The request's answer (or failure) is in, at p_at_ms by the database's clock as its process
-- bounds it (never earlier than the answer): its entry is anchored there, unless the hold ran
-- out and another request took the entry since.
create or replace function kommo_rate_answered(p_key text, p_entry integer, p_anchor text, p_at_ms double precision) returns void
  language sql
  as $$
  update kommo_rate_windows
  set anchors[p_entry] = least(anchors[p_entry], clock_timestamp(), to_timestamp(p_at_ms / 1000))
  where account_key = p_key and anchors[p_entry] = p_anchor::timestamptz;
$$;

-- After a 429 (Kommo's retry_after): every process waits.
create or replace function kommo_rate_pause(p_key text, p_ms double precision) returns void
  language sql
  as $$
  update kommo_rate_windows
  set paused_until = greatest(coalesce(paused_until, '-infinity'), clock_timestamp() + make_interval(secs => p_ms / 1000))
  where account_key = p_key;
$$;

-- 2. rate_counters: events per key in a sliding window (failed sign-ins per address and per
--    address and e-mail, sign-ups per address), at most `limit` recent times per key. A key is
--    a kind and a hash, never an address or an e-mail in clear. Rows past their window are
--    removed as new keys arrive.
create table if not exists rate_counters (
  key text primary key,
  hits timestamptz[] not null,
  expires_at timestamptz not null
);
create index if not exists rate_counters_expires_idx on rate_counters (expires_at);

-- Records a hit (always when p_force, else only while below p_limit) and answers how many hits
-- the window held before it.
create or replace function rate_counter_hit(p_key text, p_limit integer, p_window_ms double precision, p_force boolean)
  returns integer
  language plpgsql
  as $$
declare
  t timestamptz := clock_timestamp();
  since timestamptz := t - make_interval(secs => p_window_ms / 1000);
  cur timestamptz[];
  created boolean;
  kept timestamptz[];
  n integer;
begin
  -- Inserts the key or locks its row, in one statement.
  insert into rate_counters as c (key, hits, expires_at) values (p_key, '{}', t)
    on conflict (key) do update set expires_at = c.expires_at
    returning c.hits, (c.xmax = 0) into cur, created;
  if created then
    -- Each new key removes two that expired: the table holds the live keys and few more.
    delete from rate_counters where key in (
      select key from rate_counters where expires_at < t order by expires_at limit 2 for update skip locked);
  end if;
  kept := array(select h from unnest(cur) h where h > since order by h);
  n := cardinality(kept);
  if p_force or n < p_limit then
    kept := (kept || t)[greatest(1, n + 2 - p_limit):];
  end if;
  update rate_counters set hits = kept, expires_at = t + make_interval(secs => p_window_ms / 1000) where key = p_key;
  return n;
end $$;
