import { bigint, boolean, date, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { AbTest, SplitResult } from '@masivo/contract/split-test';
import type { CampaignStatus, RecipientStatus } from '@masivo/contract/campaigns';
import type { AutomationTrigger, LeadFields } from '@masivo/contract/automations';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { SendingHoursValue } from '@masivo/contract/sending-hours';
import { kommoAccounts } from './kommo';
import { users } from './users';
import { templates, whatsappAccounts } from './whatsapp';

/** 0048: a split test's variants (the first = the campaign's template) and the operator's settings. */
export interface SplitTestConfig extends AbTest {
  variants: Array<{ template_id: number; template_name: string; template_language: string }>;
}

/** Mirrors 0005_campaigns.sql; comments on the columns live there. */
export const campaigns = pgTable('campaigns', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  status: text('status').$type<CampaignStatus>().notNull().default('draft'),
  messageType: text('message_type').$type<'text' | 'template'>().notNull().default('template'),
  messageContent: text('message_content'),
  kommoAccountId: integer('kommo_account_id').references(() => kommoAccounts.id, { onDelete: 'set null' }),
  whatsappAccountId: integer('whatsapp_account_id').references(() => whatsappAccounts.id, { onDelete: 'set null' }),
  templateId: integer('template_id').references(() => templates.id, { onDelete: 'set null' }),
  templateName: text('template_name'),
  templateLanguage: text('template_language'),
  filters: jsonb('filters').$type<ContactFilter>().notNull(),
  totalRecipients: integer('total_recipients').notNull().default(0),
  messagesSent: integer('messages_sent').notNull().default(0),
  deliveredCount: integer('delivered_count').notNull().default(0),
  readCount: integer('read_count').notNull().default(0),
  failedCount: integer('failed_count').notNull().default(0),
  skippedCount: integer('skipped_count').notNull().default(0),
  unknownCount: integer('unknown_count').notNull().default(0),
  pendingCount: integer('pending_count').notNull().default(0),
  pauseReason: text('pause_reason'),
  /** 0016: 'operator', 'template' (resumes by itself when Meta unpauses the template) or 'engine'. */
  pauseOrigin: text('pause_origin'),
  /** 0014: recipients deferred by Meta's per-user marketing limit (131049), waiting for their retry. */
  deferredCount: integer('deferred_count').notNull().default(0),
  /** 0047: recipients whose message Meta reports expired (the template's time-to-live): "Vencido". */
  expiredCount: integer('expired_count').notNull().default(0),
  /** 0047: recipients who clicked a link (`user_actions` marketing_messages_link_click). */
  clickedCount: integer('clicked_count').notNull().default(0),
  /** 0047: clicks Meta's template analytics report for the campaign's days (null: not read or none given). */
  analyticsClicks: integer('analytics_clicks'),
  analyticsClicksAt: timestamp('analytics_clicks_at', { withTimezone: true }),
  deferredMaxAttempts: integer('deferred_max_attempts').notNull().default(2),
  deferredWindowHours: integer('deferred_window_hours').notNull().default(72),
  /** 0021: recipients who replied at least once. */
  repliedCount: integer('replied_count').notNull().default(0),
  /** 0014: while waiting for the portfolio's daily limit, when the campaign resumes by itself. */
  limitWaitUntil: timestamp('limit_wait_until', { withTimezone: true }),
  /** 0017: "Horario de envío" (null: off), and while all due recipients are outside it, when it reopens. */
  sendingHours: jsonb('sending_hours').$type<SendingHoursValue>(),
  hoursWaitUntil: timestamp('hours_wait_until', { withTimezone: true }),
  scheduledAt: timestamp('scheduled_at', { withTimezone: true }),
  startedAt: timestamp('started_at', { withTimezone: true }),
  completedAt: timestamp('completed_at', { withTimezone: true }),
  audienceFrozenAt: timestamp('audience_frozen_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  /**
   * 0024: 'filter' (the Kommo filter) or 'contact_list' (a follow-up's frozen list, campaign_audience_contacts);
   * 0039: 'explicit' (phones or BSUIDs given by the caller, campaign_explicit_recipients; no Kommo account);
   * 0043: 'automatic' (one recipient per Kommo trigger event, automation_events; stays switched on).
   */
  audienceKind: text('audience_kind').$type<'filter' | 'contact_list' | 'explicit' | 'automatic'>().notNull().default('filter'),
  /** 0043: an automatic campaign's trigger (null for every other campaign). */
  automationTrigger: jsonb('automation_trigger').$type<AutomationTrigger>(),
  /** 0024: a follow-up's source campaign (its name kept for when it is deleted) and group. */
  sourceCampaignId: integer('source_campaign_id'),
  sourceCampaignName: text('source_campaign_name'),
  sourceGroup: jsonb('source_group').$type<{ group: string; hours?: number; button?: string }>(),
  /** 0033: the member who created it (null before organisations: the founder). */
  createdBy: integer('created_by').references(() => users.id, { onDelete: 'set null' }),
  /** 0048: "Prueba A/B": the variants and settings, when the decision is due, the decision. */
  splitTest: jsonb('split_test').$type<SplitTestConfig>(),
  splitDecideAt: timestamp('split_decide_at', { withTimezone: true }),
  splitResult: jsonb('split_result').$type<SplitResult>(),
  /** 0052: the decision waits for more successes until then (the sample was too small). */
  splitExtendedUntil: timestamp('split_extended_until', { withTimezone: true }),
});

export const campaignRecipients = pgTable('campaign_recipients', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  // The owner, as on every owned table; not a foreign key (0032): the campaign's, checked, implies it.
  userId: integer('user_id').notNull(),
  contactId: bigint('contact_id', { mode: 'number' }),
  phone: text('phone'),
  phoneKey: text('phone_key'),
  status: text('status').$type<RecipientStatus>().notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
  claimedAt: timestamp('claimed_at', { withTimezone: true }),
  claimOwner: text('claim_owner'),
  dispatchedAt: timestamp('dispatched_at', { withTimezone: true }),
  wamid: text('wamid'),
  errorCode: integer('error_code'),
  errorMessage: text('error_message'),
  sentAt: timestamp('sent_at', { withTimezone: true }),
  deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  readAt: timestamp('read_at', { withTimezone: true }),
  failedAt: timestamp('failed_at', { withTimezone: true }),
  /** 0016: Meta answered `held_for_quality_assessment` (template pacing): "Retenido por Meta". */
  heldAt: timestamp('held_at', { withTimezone: true }),
  /** 0013: Meta's `pricing` of the status webhooks. */
  pricingCategory: text('pricing_category'),
  pricingType: text('pricing_type'),
  pricingModel: text('pricing_model'),
  /** 0013: the business-scoped user id sent to or reported by Meta. */
  bsuid: text('bsuid'),
  /** 0014: how many times Meta's per-user marketing limit deferred it, and when first. */
  deferrals: integer('deferrals').notNull().default(0),
  firstDeferredAt: timestamp('first_deferred_at', { withTimezone: true }),
  /** 0047: the route that carried it: `messages` or `marketing_messages` (null: before 0047). */
  route: text('route'),
  /** 0047: link clicks Meta reported (marketing_messages_link_click), and the first one's time. */
  clickedAt: timestamp('clicked_at', { withTimezone: true }),
  clickCount: integer('click_count').notNull().default(0),
  /** 0052: the latest click's time. */
  lastClickedAt: timestamp('last_clicked_at', { withTimezone: true }),
  /** 0017: the recipient's IANA zone and ISO country, computed when the audience is frozen. */
  timeZone: text('time_zone'),
  country: text('country'),
  /** 0021: the first attributed reply, how many, the latest text, the first quick-reply button tapped. */
  repliedAt: timestamp('replied_at', { withTimezone: true }),
  replyCount: integer('reply_count').notNull().default(0),
  lastReply: text('last_reply'),
  buttonTapped: text('button_tapped'),
  /** 0039: an explicit recipient's own template parameters (mapping keys → values); null otherwise. */
  params: jsonb('params').$type<Record<string, string>>(),
  /** 0049: the number it is sent from in a several-number campaign; null = the campaign's one number. */
  whatsappAccountId: integer('whatsapp_account_id'),
  /** 0043: an automatic campaign's lead, and its fields read at the due time (the `lead.*` variables). */
  leadId: bigint('lead_id', { mode: 'number' }),
  lead: jsonb('lead').$type<LeadFields>(),
  /** 0048: a split test's arm (0 = A); null outside one, and for the rest until the decision. */
  variant: smallint('variant'),
});

/** 0052: each link click applied, so a webhook Meta retries counts once (link-clicks.ts). */
export const linkClickEvents = pgTable(
  'link_click_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    recipientId: bigint('recipient_id', { mode: 'number' }).notNull(),
    eventKey: text('event_key').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('link_click_events_key_idx').on(t.recipientId, t.eventKey), index('link_click_events_received_idx').on(t.receivedAt, t.id)],
);

/** 0049: the numbers of a campaign that sends from several (no row: the campaign's one number). */
export const campaignNumbers = pgTable(
  'campaign_numbers',
  {
    campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
    whatsappAccountId: integer('whatsapp_account_id')
      .notNull()
      .references(() => whatsappAccounts.id, { onDelete: 'cascade' }),
    userId: integer('user_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.whatsappAccountId] })],
);

/** 0021: inbound messages, kept once per number and wamid, attributed to a campaign recipient when they answer one. */
export const inboundMessages = pgTable('inbound_messages', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  whatsappAccountId: integer('whatsapp_account_id')
    .notNull()
    .references(() => whatsappAccounts.id, { onDelete: 'cascade' }),
  wamid: text('wamid').notNull(),
  fromPhoneKey: text('from_phone_key'),
  fromBsuid: text('from_bsuid'),
  type: text('type').notNull(),
  body: text('body'),
  buttonPayload: text('button_payload'),
  contextWamid: text('context_wamid'),
  sentAt: timestamp('sent_at', { withTimezone: true }).notNull(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  campaignId: integer('campaign_id').references(() => campaigns.id, { onDelete: 'set null' }),
  recipientId: bigint('recipient_id', { mode: 'number' }),
});

/** 0014: unique recipients a business portfolio reached, per tenant (see portfolio-budget.ts). */
export const portfolioReach = pgTable(
  'portfolio_reach',
  {
    userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    portfolioId: text('portfolio_id').notNull(),
    phoneKey: text('phone_key').notNull(),
    reachedAt: timestamp('reached_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.portfolioId, t.phoneKey] })],
);

export const senderLeases = pgTable('sender_leases', {
  whatsappAccountId: integer('whatsapp_account_id')
    .primaryKey()
    .references(() => whatsappAccounts.id, { onDelete: 'cascade' }),
  owner: text('owner').notNull(),
  acquiredAt: timestamp('acquired_at', { withTimezone: true }).notNull().defaultNow(),
  renewedAt: timestamp('renewed_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

export const webhookEvents = pgTable('webhook_events', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  payload: jsonb('payload').notNull(),
  attempts: integer('attempts').notNull().default(0),
  processAfter: timestamp('process_after', { withTimezone: true }).notNull().defaultNow(),
  lastError: text('last_error'),
});

/** 0017: public holidays per country, filled from a maintained library for the years needed. */
export const publicHolidays = pgTable(
  'public_holidays',
  {
    country: text('country').notNull(),
    day: date('day').notNull(),
    name: text('name').notNull(),
  },
  (t) => [primaryKey({ columns: [t.country, t.day] })],
);

export const publicHolidayYears = pgTable(
  'public_holiday_years',
  {
    country: text('country').notNull(),
    year: integer('year').notNull(),
  },
  (t) => [primaryKey({ columns: [t.country, t.year] })],
);

/**
 * 0051: the charts' rollups, folded off the send path by the `campaign-rollups` job
 * (services/campaigns/campaign-rollups.ts). One row per folded campaign: its funnel, the span
 * of its events, the change mark it was folded at and when.
 */
export const campaignRollups = pgTable('campaign_rollups', {
  campaignId: integer('campaign_id')
    .primaryKey()
    .references(() => campaigns.id, { onDelete: 'cascade' }),
  userId: integer('user_id').notNull(),
  attempted: integer('attempted').notNull().default(0),
  sent: integer('sent').notNull().default(0),
  delivered: integer('delivered').notNull().default(0),
  read: integer('read').notNull().default(0),
  replied: integer('replied').notNull().default(0),
  firstAt: timestamp('first_at', { withTimezone: true }),
  lastAt: timestamp('last_at', { withTimezone: true }),
  sourceMark: text('source_mark').notNull(),
  foldedAt: timestamp('folded_at', { withTimezone: true }).notNull(),
  /** How long its last fold took: the campaign is folded again only after FOLD_GAP times that. */
  foldMs: integer('fold_ms').notNull().default(0),
  /** 0053: messages carried by the Marketing Messages API and by /messages. */
  routedMarketing: integer('routed_marketing').notNull().default(0),
  routedCloud: integer('routed_cloud').notNull().default(0),
  /** 0053: this fold wrote campaign_rollup_costs and campaign_rollup_countries. */
  costsFolded: boolean('costs_folded').notNull().default(false),
});

/** 0051: the timeline per campaign and UTC minute. */
export const campaignRollupMinutes = pgTable(
  'campaign_rollup_minutes',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaignRollups.campaignId, { onDelete: 'cascade' }),
    minute: timestamp('minute', { withTimezone: true }).notNull(),
    sent: integer('sent').notNull(),
    delivered: integer('delivered').notNull(),
    read: integer('read').notNull(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.minute] })],
);

/** 0051: the dashboard per campaign and quarter hour (sends of the quarter and their fate; failures of the quarter). */
export const campaignRollupQuarters = pgTable(
  'campaign_rollup_quarters',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaignRollups.campaignId, { onDelete: 'cascade' }),
    userId: integer('user_id').notNull(),
    quarter: timestamp('quarter', { withTimezone: true }).notNull(),
    sent: integer('sent').notNull(),
    delivered: integer('delivered').notNull(),
    read: integer('read').notNull(),
    failed: integer('failed').notNull(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.quarter] })],
);

/** 0051: the failures per campaign and Meta error code. */
export const campaignRollupFailures = pgTable('campaign_rollup_failures', {
  campaignId: integer('campaign_id')
    .notNull()
    .references(() => campaignRollups.campaignId, { onDelete: 'cascade' }),
  errorCode: integer('error_code'),
  failures: integer('failures').notNull(),
  message: text('message'),
});

/** 0051: when the rollup job last finished a pass over every campaign. */
export const campaignRollupPasses = pgTable('campaign_rollup_passes', {
  name: text('name').primaryKey(),
  passedAt: timestamp('passed_at', { withTimezone: true }).notNull(),
});

/** 0053: the delivered messages per what prices them and split-test arm (the campaign's real cost). */
export const campaignRollupCosts = pgTable('campaign_rollup_costs', {
  campaignId: integer('campaign_id')
    .notNull()
    .references(() => campaignRollups.campaignId, { onDelete: 'cascade' }),
  variant: smallint('variant'),
  category: text('category'),
  type: text('type'),
  model: text('model'),
  country: text('country'),
  sample: text('sample'),
  day: text('day').notNull(),
  n: integer('n').notNull(),
});

/** 0053: the recipients attempted per country (the cost estimate's audience). */
export const campaignRollupCountries = pgTable('campaign_rollup_countries', {
  campaignId: integer('campaign_id')
    .notNull()
    .references(() => campaignRollups.campaignId, { onDelete: 'cascade' }),
  country: text('country'),
  sample: text('sample'),
  n: integer('n').notNull(),
});
