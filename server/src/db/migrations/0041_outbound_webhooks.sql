-- Outbound webhooks (Standard Webhooks): an organisation's endpoints, the events waiting to be
-- fanned out to them, one delivery per event and endpoint (its webhook-id stable across
-- retries), and every attempt of a delivery (status code, answer excerpt, duration).
create table webhook_endpoints (
  id integer generated always as identity primary key,
  organization_id integer not null references organizations(id) on delete cascade,
  url text not null,
  description text,
  events text[] not null,
  -- whsec_… sealed with the secret box (lib/secret-box.ts); never returned after it is shown once.
  secret_sealed text not null,
  -- The secret before the last rotation: still signs beside the new one until it expires (24 h).
  previous_secret_sealed text,
  previous_secret_expires_at timestamptz,
  enabled boolean not null default true,
  disabled_reason text,
  disabled_at timestamptz,
  -- The first failed attempt since the last success; after 3 days the endpoint is disabled.
  failing_since timestamptz,
  created_by_user_id integer references users(id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_endpoints_org_idx on webhook_endpoints (organization_id);

-- Events written in the transaction that made them happen, fanned out to deliveries by the
-- periodic job `webhooks-fanout` (message.status grouped per campaign, at most 100 a delivery).
create table webhook_outbox (
  id bigint generated always as identity primary key,
  organization_id integer not null,
  event_type text not null,
  campaign_id integer,
  data jsonb not null,
  created_at timestamptz not null default now()
);

create table webhook_deliveries (
  id bigint generated always as identity primary key,
  endpoint_id integer not null references webhook_endpoints(id) on delete cascade,
  organization_id integer not null,
  -- The webhook-id header: the same on every attempt, so receivers can deduplicate.
  msg_id text not null,
  event_type text not null,
  -- The exact body signed and sent on every attempt.
  body text not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  lease_owner text,
  lease_expires_at timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  unique (endpoint_id, msg_id)
);
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at, id) where state = 'pending';
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, id desc);
create index webhook_deliveries_finished_idx on webhook_deliveries (finished_at) where state <> 'pending';

create table webhook_delivery_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references webhook_deliveries(id) on delete cascade,
  at timestamptz not null default now(),
  status_code integer,
  duration_ms integer not null,
  -- The first characters of the answer (at most 2 KB are read).
  response_excerpt text,
  error text
);
create index webhook_delivery_attempts_delivery_idx on webhook_delivery_attempts (delivery_id, id);

-- Every campaign status change, wherever it is written (a member, the scheduler, Meta's
-- webhooks, an approval), reaches the outbox in its own transaction. An organisation without an
-- enabled endpoint subscribed to the event costs one index probe per status change, never per
-- message. A pause names its origin and reason, and the member when the writer set
-- `masivo.actor_user_id` for its transaction (services/campaigns/campaign-transitions.ts).
create function campaign_status_webhook() returns trigger language plpgsql as $$
declare
  event text;
  data jsonb;
begin
  event := case new.status
    when 'pending_approval' then 'campaign.pending_approval'
    when 'sending' then 'campaign.started'
    when 'paused' then 'campaign.paused'
    when 'completed' then 'campaign.completed'
    when 'cancelled' then 'campaign.cancelled'
  end;
  if event is null then
    return null;
  end if;
  if not exists (select 1 from webhook_endpoints e
                 where e.organization_id = new.user_id and e.enabled and event = any(e.events)) then
    return null;
  end if;
  data := jsonb_build_object('campaign_id', new.id, 'name', new.name, 'status', new.status, 'previous_status', old.status);
  if new.status = 'paused' then
    data := data || jsonb_build_object('paused_by', jsonb_build_object(
      'origin', coalesce(new.pause_origin, 'operator'),
      'reason', new.pause_reason,
      'user_id', nullif(current_setting('masivo.actor_user_id', true), '')::integer));
  end if;
  insert into webhook_outbox (organization_id, event_type, campaign_id, data)
  values (new.user_id, event, new.id, data);
  return null;
end $$;
create trigger campaigns_status_webhook after update of status on campaigns
  for each row when (old.status is distinct from new.status) execute function campaign_status_webhook();
