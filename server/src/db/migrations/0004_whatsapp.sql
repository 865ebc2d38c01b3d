create table whatsapp_accounts (
  id integer generated always as identity primary key,
  user_id integer not null references users(id) on delete cascade,
  name text not null,
  phone_number text not null,
  display_phone_number text,
  phone_number_id text not null,
  access_token_enc text not null,
  business_account_id text not null,
  kommo_account_id integer references kommo_accounts(id) on delete set null,
  webhook_verify_token text,
  notes text,
  is_active boolean not null default true,
  is_verified boolean not null default false,
  quality_rating text,
  verified_name text,
  code_verification_status text,
  throughput_level text,
  messaging_limit text,
  -- Sending rate held by the campaign sender for this number (Meta: 80 default, up to 1000).
  rate_per_second integer not null default 80 check (rate_per_second between 1 and 1000),
  last_message_sent_at timestamptz,
  last_checked_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Webhooks arrive keyed by Meta's phone number id.
create index whatsapp_accounts_phone_number_id_idx on whatsapp_accounts (phone_number_id);

-- Accepted sends per account and day, written by the sender, read by the stats cards.
create table whatsapp_message_counts (
  whatsapp_account_id integer not null references whatsapp_accounts(id) on delete cascade,
  day date not null,
  sent integer not null default 0,
  primary key (whatsapp_account_id, day)
);

create table templates (
  id integer generated always as identity primary key,
  user_id integer not null references users(id) on delete cascade,
  whatsapp_account_id integer not null references whatsapp_accounts(id) on delete cascade,
  kommo_account_id integer references kommo_accounts(id) on delete set null,
  -- Meta's template id (hsm_id); null until Meta accepted the submission.
  meta_id text,
  name text not null,
  language text not null,
  category text not null,
  status text not null,
  components jsonb not null default '[]',
  rejection_reason text,
  submission_error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index templates_account_name_language_key on templates (whatsapp_account_id, name, language);

create table template_variable_mappings (
  id integer generated always as identity primary key,
  user_id integer not null references users(id) on delete cascade,
  template_id integer not null references templates(id) on delete cascade,
  template_variable text not null,
  source_type text not null default 'contact',
  source_field text not null,
  default_value text not null default '',
  created_at timestamptz not null default now()
);
create unique index template_variable_mappings_key on template_variable_mappings (template_id, template_variable);
