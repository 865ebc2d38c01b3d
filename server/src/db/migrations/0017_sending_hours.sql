-- Issue 13, sending hours ("Horario de envío"): days and a window evaluated in each recipient's
-- local time. {days: [1..7 ISO weekdays], start: 'HH:MM', end: 'HH:MM', skip_holidays: bool};
-- null = off. A window whose end is before its start crosses midnight.
alter table campaigns add column if not exists sending_hours jsonb;
-- While every due recipient is outside its window: when the first window reopens.
alter table campaigns add column if not exists hours_wait_until timestamptz;
-- The default new campaigns of the number start with.
alter table whatsapp_accounts add column if not exists default_sending_hours jsonb;

-- Where a recipient's zone comes from: a contact field (by its name, as contacts.custom_fields
-- keys it; values are IANA names), else the phone, else the Kommo account's own zone.
alter table kommo_accounts add column if not exists time_zone_field text;
alter table kommo_accounts add column if not exists time_zone text not null default 'America/Argentina/Buenos_Aires';

-- Computed when the audience is frozen: the recipient's IANA zone and ISO country.
alter table campaign_recipients add column if not exists time_zone text;
alter table campaign_recipients add column if not exists country text;

-- Public holidays per country (from a maintained library), filled for the years a campaign
-- needs when it starts and by the scheduler; the claim reads them, never the library.
create table if not exists public_holidays (
  country text not null,
  day date not null,
  name text not null,
  primary key (country, day)
);
create table if not exists public_holiday_years (
  country text not null,
  year integer not null,
  primary key (country, year)
);
