import { bigint, boolean, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { users } from './users';

export const kommoAccounts = pgTable('kommo_accounts', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  subdomain: text('subdomain').notNull(),
  accessTokenEnc: text('access_token_enc').notNull(),
  phoneFieldId: integer('phone_field_id').notNull(),
  country: text('country'),
  /** 0017: the contact field (name) holding each person's IANA zone, and the account's own zone. */
  timeZoneField: text('time_zone_field'),
  timeZone: text('time_zone').notNull().default('America/Argentina/Buenos_Aires'),
  syncStatus: text('sync_status').$type<'idle' | 'syncing' | 'synced' | 'error'>().notNull().default('idle'),
  syncTotalContacts: integer('sync_total_contacts').notNull().default(0),
  syncProgressContacts: integer('sync_progress_contacts').notNull().default(0),
  lastSyncAt: timestamp('last_sync_at', { withTimezone: true }),
  syncErrorMessage: text('sync_error_message'),
  syncLeaseOwner: text('sync_lease_owner'),
  syncLeaseExpiresAt: timestamp('sync_lease_expires_at', { withTimezone: true }),
  syncState: jsonb('sync_state'),
  syncWatermark: bigint('sync_watermark', { mode: 'number' }),
  syncGeneration: integer('sync_generation').notNull().default(0),
  syncFullAt: timestamp('sync_full_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** 0025: write-back of campaign results to Kommo (opt-in), see engine/kommo-writeback. */
  writebackEnabled: boolean('writeback_enabled').notNull().default(false),
  writebackEnabledAt: timestamp('writeback_enabled_at', { withTimezone: true }),
  writebackNotes: boolean('writeback_notes').notNull().default(true),
  writebackOptOutTag: text('writeback_opt_out_tag'),
  writebackReplyTag: text('writeback_reply_tag'),
  writebackPipelineId: bigint('writeback_pipeline_id', { mode: 'number' }),
  writebackStatusId: bigint('writeback_status_id', { mode: 'number' }),
  /** 0027: the country national-format phones are read in (ISO 3166-1 alpha-2); null: Kommo's `country`. */
  defaultCountry: text('default_country'),
  /** 0027: the last re-check of the stored phones with a new default country (engine/kommo-sync/phone-recheck.ts). */
  phoneRecheck: jsonb('phone_recheck'),
  /** 0038: the member who created it (null: before members, or made by the system). */
  createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
  /** 0042: the credential in the webhook's URL (never returned by the API); see services/kommo-inbound. */
  hookSecret: text('hook_secret'),
  /** 0042: «Mantener contactos al día» between syncs (webhooks, else the catch-up). */
  keepFresh: boolean('keep_fresh').notNull().default(true),
  hookStatus: text('hook_status').$type<'subscribed' | 'unavailable' | 'off'>(),
  hookError: text('hook_error'),
  hookCheckedAt: timestamp('hook_checked_at', { withTimezone: true }),
  hookLastReceivedAt: timestamp('hook_last_received_at', { withTimezone: true }),
  /** 0042: the catch-up's cursors (engine/kommo-inbound/catch-up.ts): unix second and the ids taken in at it. */
  catchupEventsFrom: bigint('catchup_events_from', { mode: 'number' }),
  catchupEventsSeen: jsonb('catchup_events_seen').$type<string[]>(),
  catchupContactsFrom: bigint('catchup_contacts_from', { mode: 'number' }),
  catchupContactsSeen: jsonb('catchup_contacts_seen').$type<number[]>(),
  catchupLastAt: timestamp('catchup_last_at', { withTimezone: true }),
  catchupError: text('catchup_error'),
});

/** 0042: webhook bodies and catch-up findings waiting for the inbound worker (engine/kommo-inbound). */
export const kommoInbox = pgTable('kommo_inbox', {
  id: bigint('id', { mode: 'number' }).primaryKey(),
  accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
  source: text('source').$type<'webhook' | 'catchup'>().notNull(),
  body: jsonb('body').notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  failedAt: timestamp('failed_at', { withTimezone: true }),
  error: text('error'),
});

export const kommoCustomFields = pgTable(
  'kommo_custom_fields',
  {
    accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    fieldId: bigint('field_id', { mode: 'number' }).notNull(),
    name: text('name').notNull(),
    type: text('type').notNull(),
    code: text('code'),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.fieldId] })],
);

export const contacts = pgTable('contacts', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
  kommoId: bigint('kommo_id', { mode: 'number' }).notNull(),
  name: text('name').notNull().default(''),
  firstName: text('first_name').notNull().default(''),
  lastName: text('last_name').notNull().default(''),
  phone: text('phone'),
  phoneRaw: text('phone_raw'),
  email: text('email'),
  tags: text('tags').array().notNull().default([]),
  customFields: jsonb('custom_fields').$type<Record<string, string>>().notNull().default({}),
  kommoUpdatedAt: bigint('kommo_updated_at', { mode: 'number' }).notNull().default(0),
  syncGeneration: integer('sync_generation').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** 0020: the phone key (or the BSUID of a phone field), computed by PostgreSQL on every write (expression in the migration). */
  phoneKey: text('phone_key').generatedAlwaysAs(sql`phone_key`),
  /** 0020: the BSUID a Kommo phone field holds when there is no phone, computed on every write. */
  bsuid: text('bsuid').generatedAlwaysAs(sql`bsuid`),
});

export const blacklist = pgTable('blacklist', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
  phone: text('phone').notNull(),
  phoneKey: text('phone_key').notNull(),
  reason: text('reason'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** 0013: manual | keyword | button | meta_marketing (see services/blacklist/origins.ts). */
  origin: text('origin').notNull().default('manual'),
  /** 0013: the person's business-scoped user id, when known. */
  bsuid: text('bsuid'),
  /** 0038: the member who added it (null: before members, or an opt-out). */
  createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
});

/** Tag names seen per account (kept by the sync) so tag pickers never scan every contact. */
export const contactTags = pgTable(
  'contact_tags',
  {
    accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.name] })],
);

/** Filter keys ('t' || tag, 'f' || field, 'v' || ["field", "value"]) numbered per account; kept by a trigger. */
export const contactFilterKeys = pgTable('contact_filter_keys', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
  key: text('key').notNull(),
});

/** A narrow per-contact copy of its filter key ids, for counting tag/field filters; kept by a trigger. */
export const contactFacets = pgTable('contact_facets', {
  contactId: bigint('contact_id', { mode: 'number' }).primaryKey().references(() => contacts.id, { onDelete: 'cascade' }),
  userId: integer('user_id').notNull(),
  accountId: integer('account_id').notNull(),
  keyIds: integer('key_ids').array().notNull(),
  /** 0026: the contact's phone key (contacts.phone_key), so the pre-flight groups people from this narrow row. */
  phoneKey: text('phone_key'),
});

/** Per contact its search text, lowercased, for exact search counts; kept by statement triggers (0010_contact_counts.sql). */
export const contactSearch = pgTable('contact_search', {
  contactId: bigint('contact_id', { mode: 'number' }).primaryKey().references(() => contacts.id, { onDelete: 'cascade' }),
  userId: integer('user_id').notNull(),
  accountId: integer('account_id').notNull(),
  search: text('search').notNull(),
});

/** Contacts per account and filter key ('#' = every contact); kept by statement triggers (0010_contact_counts.sql). */
export const contactKeyCounts = pgTable(
  'contact_key_counts',
  {
    accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
    key: text('key').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] })],
);

/** 0026: per account and phone key, how many contacts share it (statement triggers on contacts). */
export const contactPeople = pgTable(
  'contact_people',
  {
    accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
    phoneKey: text('phone_key').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.phoneKey] })],
);

/** 0026: per account and key prefix (4 characters), how many people and contacts. */
export const contactPeoplePrefixes = pgTable(
  'contact_people_prefixes',
  {
    accountId: integer('account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
    prefix: text('prefix').notNull(),
    people: integer('people').notNull(),
    contacts: integer('contacts').notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.prefix] })],
);

/** Bumped by statement triggers on contacts (0009_contacts.sql): the key of every cached contacts figure. */
export const contactDataVersions = pgTable('contact_data_versions', {
  accountId: integer('account_id').primaryKey().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull().default(1),
});
