import { bigint, integer, pgTable, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { campaigns } from './campaigns';

/** 0043: the trigger events of automatic campaigns, one per (campaign, lead, stage, time of the move). */
export const automationEvents = pgTable(
  'automation_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
    userId: integer('user_id').notNull(),
    kommoAccountId: integer('kommo_account_id').notNull(),
    leadId: bigint('lead_id', { mode: 'number' }).notNull(),
    pipelineId: bigint('pipeline_id', { mode: 'number' }).notNull(),
    statusId: bigint('status_id', { mode: 'number' }).notNull(),
    oldStatusId: bigint('old_status_id', { mode: 'number' }),
    kind: text('kind').$type<'enter' | 'created'>().notNull(),
    eventAt: timestamp('event_at', { withTimezone: true }).notNull(),
    dueAt: timestamp('due_at', { withTimezone: true }).notNull(),
    source: text('source').$type<'webhook' | 'catchup'>().notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
    recipientId: bigint('recipient_id', { mode: 'number' }),
    resolvedAt: timestamp('resolved_at', { withTimezone: true }),
  },
  (t) => [unique('automation_events_event_key').on(t.campaignId, t.leadId, t.statusId, t.eventAt)],
);
