-- Issue 13, cost up front: a tenant's own WhatsApp rate card (USD per delivered template message).
-- No row in rate_cards: the tenant follows the shipped default card
-- (server/src/services/pricing/default-rate-card.ts). An upload replaces the tenant's rows whole.
create table rate_cards (
  user_id integer primary key references users(id) on delete cascade,
  updated_at timestamptz not null default now()
);

create table rate_card_rates (
  id integer generated always as identity primary key,
  user_id integer not null references rate_cards(user_id) on delete cascade,
  -- Meta's template category: marketing, utility or authentication.
  category text not null check (category in ('marketing', 'utility', 'authentication')),
  -- An ISO 3166-1 alpha-2 country (AR, MX…) or a region of Meta's card (resto_latam).
  market text not null,
  -- The rate is in force from this date (UTC) until the next row of the same category and market.
  effective_from date not null,
  -- Null: no known rate from this date ("sin tarifa"), e.g. Meta changed it and the new figure is not sourced.
  usd_per_message numeric(12, 6) check (usd_per_message >= 0),
  source text,
  source_date date
);
create unique index rate_card_rates_key on rate_card_rates (user_id, category, market, effective_from);
