-- The activity log refuses every UPDATE (0034), but its actor column is `on delete set null`:
-- removing a user with entries would have failed on that one update. The entries keep the name
-- and role as they were; only that column may go to null, nothing else may change.
create or replace function activity_log_append_only() returns trigger language plpgsql as $$
begin
  if new.actor_user_id is null and old.actor_user_id is not null
     and (to_jsonb(new) - 'actor_user_id') = (to_jsonb(old) - 'actor_user_id') then
    return new;
  end if;
  raise exception 'activity_log is append-only';
end $$;
