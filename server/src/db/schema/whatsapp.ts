import { boolean, date, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { SendingHoursValue } from '@masivo/contract/sending-hours';
import { kommoAccounts } from './kommo';
import { users } from './users';

export const whatsappAccounts = pgTable('whatsapp_accounts', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  phoneNumber: text('phone_number').notNull(),
  displayPhoneNumber: text('display_phone_number'),
  phoneNumberId: text('phone_number_id').notNull(),
  accessTokenEnc: text('access_token_enc').notNull(),
  businessAccountId: text('business_account_id').notNull(),
  kommoAccountId: integer('kommo_account_id').references(() => kommoAccounts.id, { onDelete: 'set null' }),
  webhookVerifyToken: text('webhook_verify_token'),
  notes: text('notes'),
  isActive: boolean('is_active').notNull().default(true),
  isVerified: boolean('is_verified').notNull().default(false),
  qualityRating: text('quality_rating'),
  verifiedName: text('verified_name'),
  codeVerificationStatus: text('code_verification_status'),
  throughputLevel: text('throughput_level'),
  /** Meta's `is_on_biz_app`: the number is also used in the WhatsApp Business app (coexistence, 20 msg/s). */
  isOnBizApp: boolean('is_on_biz_app'),
  messagingLimit: text('messaging_limit'),
  ratePerSecond: integer('rate_per_second').notNull().default(80),
  /** 0017: the "Horario de envío" new campaigns of this number start with (null: off). */
  defaultSendingHours: jsonb('default_sending_hours').$type<SendingHoursValue>(),
  lastMessageSentAt: timestamp('last_message_sent_at', { withTimezone: true }),
  lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
  /** Set when Meta confirmed, with this account's token, that the number belongs to its WABA. */
  ownerVerifiedAt: timestamp('owner_verified_at', { withTimezone: true }),
  /** 0014: the business portfolio owning the WABA (null: unknown, the WABA stands for it). */
  businessPortfolioId: text('business_portfolio_id'),
  /** 0014: the portfolio's messaging limit, unique recipients per moving 24 h; -1 unlimited, null unknown. */
  dailyLimit: integer('daily_limit'),
  /** 0014: Meta's time of that limit. */
  dailyLimitAt: timestamp('daily_limit_at', { withTimezone: true }),
  /** 0052: Meta restricted the number (its WABA, or a send's 131031/131048): since, until (null: until lifted), why. */
  restrictedAt: timestamp('restricted_at', { withTimezone: true }),
  restrictedUntil: timestamp('restricted_until', { withTimezone: true }),
  restrictedReason: text('restricted_reason'),
  /** 0047: the WABA's `marketing_messages_onboarding_status` (ONBOARDED, ELIGIBLE, …); null: not read. */
  mmOnboardingStatus: text('mm_onboarding_status'),
  /** 0047: the portfolio's terms (`owner_business_info…status`: TERM_OF_SERVICE_SIGNED, REQUEST_SENT, NOT_STARTED). */
  mmTermsStatus: text('mm_terms_status'),
  mmCheckedAt: timestamp('mm_checked_at', { withTimezone: true }),
  /** 0047: Meta refused the marketing route: /messages until Meta reports the portfolio onboarded again. */
  mmFallbackAt: timestamp('mm_fallback_at', { withTimezone: true }),
  mmFallbackReason: text('mm_fallback_reason'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** 0038: the member who created it (null: before members, or made by the system). */
  createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
});

/** A person's "stop messaging me", kept per tenant (see migration 0007). */
export const optOuts = pgTable(
  'opt_outs',
  {
    userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    phoneKey: text('phone_key').notNull(),
    phone: text('phone').notNull(),
    whatsappAccountId: integer('whatsapp_account_id').references(() => whatsappAccounts.id, { onDelete: 'set null' }),
    word: text('word').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** 0013: keyword | button | meta_marketing. */
    origin: text('origin').notNull().default('keyword'),
    /** 0013: the person's business-scoped user id, when known. */
    bsuid: text('bsuid'),
  },
  (t) => [primaryKey({ columns: [t.userId, t.phoneKey] })],
);

export const whatsappMessageCounts = pgTable(
  'whatsapp_message_counts',
  {
    whatsappAccountId: integer('whatsapp_account_id')
      .notNull()
      .references(() => whatsappAccounts.id, { onDelete: 'cascade' }),
    day: date('day').notNull(),
    sent: integer('sent').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.whatsappAccountId, t.day] })],
);

/** A component as Meta returns it; carousel cards, offers and later fields are kept as they come. */
export interface TemplateComponent {
  type: 'HEADER' | 'BODY' | 'FOOTER' | 'BUTTONS' | 'CAROUSEL' | 'LIMITED_TIME_OFFER' | (string & {});
  format?: string;
  text?: string;
  example?: unknown;
  buttons?: unknown[];
  [key: string]: unknown;
}

/** `template_category_update`: impending (`to` at `at`) or completed (`from` → `to`). */
export interface TemplateCategoryChange {
  kind: 'impending' | 'completed';
  from: string | null;
  to: string;
  /** ISO time the change takes (took) effect, when Meta says. */
  at: string | null;
}

export const templates = pgTable('templates', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  whatsappAccountId: integer('whatsapp_account_id')
    .notNull()
    .references(() => whatsappAccounts.id, { onDelete: 'cascade' }),
  kommoAccountId: integer('kommo_account_id').references(() => kommoAccounts.id, { onDelete: 'set null' }),
  metaId: text('meta_id'),
  name: text('name').notNull(),
  language: text('language').notNull(),
  category: text('category').notNull(),
  status: text('status').notNull(),
  components: jsonb('components').$type<TemplateComponent[]>().notNull().default([]),
  rejectionReason: text('rejection_reason'),
  submissionError: text('submission_error'),
  /** 0011: POSITIONAL or NAMED, as Meta reports it; decides how parameters are sent. */
  parameterFormat: text('parameter_format').notNull().default('POSITIONAL'),
  /** 0011: Meta's quality score (GREEN, YELLOW, RED, UNKNOWN), null until Meta sends one. */
  qualityScore: text('quality_score'),
  /** 0012: indexes of the quick-reply buttons marked «Baja» (their tap blacklists the number). */
  optOutButtons: jsonb('opt_out_buttons').$type<number[]>().notNull().default([]),
  /** Meta's time of the last status webhook applied (0008): older events are ignored. */
  statusEventAt: timestamp('status_event_at', { withTimezone: true }),
  /** 0016: the detail of Meta's last status event (FIRST_PAUSE, SECOND_PAUSE, FLAGGED…). */
  statusDetail: text('status_detail'),
  /** 0016: a category change Meta announced (impending) or made (completed). */
  categoryChange: jsonb('category_change').$type<TemplateCategoryChange>(),
  /** 0047: `message_send_ttl_seconds` (marketing: 12 h to 30 days; null: Meta's default). */
  messageSendTtlSeconds: integer('message_send_ttl_seconds'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /** 0038: the member who created it (null: before members, or made by the system). */
  createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
});

export const templateVariableMappings = pgTable('template_variable_mappings', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  templateId: integer('template_id').notNull().references(() => templates.id, { onDelete: 'cascade' }),
  templateVariable: text('template_variable').notNull(),
  sourceType: text('source_type').notNull().default('contact'),
  sourceField: text('source_field').notNull(),
  defaultValue: text('default_value').notNull().default(''),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
