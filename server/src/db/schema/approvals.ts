import { integer, jsonb, numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { ApprovalDecision, ApprovalKind } from '@masivo/contract/campaigns';
import { campaigns } from './campaigns';
import { users } from './users';

/** Mirrors 0036_campaign_approvals.sql; comments on the columns live there. */
export const campaignApprovals = pgTable('campaign_approvals', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  campaignId: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
  kind: text('kind').$type<ApprovalKind>().notNull(),
  requestedBy: integer('requested_by').references(() => users.id, { onDelete: 'set null' }),
  requestedAt: timestamp('requested_at', { withTimezone: true }).notNull().defaultNow(),
  snapshot: jsonb('snapshot').$type<Record<string, unknown>>().notNull(),
  attempted: integer('attempted').notNull(),
  costUsd: numeric('cost_usd', { precision: 14, scale: 4 }),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  decision: text('decision').$type<ApprovalDecision>(),
  decidedBy: integer('decided_by').references(() => users.id, { onDelete: 'set null' }),
  decidedAt: timestamp('decided_at', { withTimezone: true }),
  note: text('note'),
  usedAt: timestamp('used_at', { withTimezone: true }),
});
