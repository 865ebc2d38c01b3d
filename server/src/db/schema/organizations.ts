import { integer, numeric, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import type { Role } from '@masivo/contract/organizations';
import { users } from './users';

/** Mirrors 0033_organizations.sql: an organisation's id is its founder's user id. */
export const organizations = pgTable('organizations', {
  id: integer('id').primaryKey(),
  name: text('name').notNull(),
  approvalMode: text('approval_mode').$type<'off' | 'recipients' | 'cost' | 'always'>().notNull().default('off'),
  approvalMinRecipients: integer('approval_min_recipients'),
  approvalMinCostUsd: numeric('approval_min_cost_usd', { precision: 14, scale: 2 }),
  activityRetentionDays: integer('activity_retention_days').notNull().default(365),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

export const organizationMembers = pgTable(
  'organization_members',
  {
    organizationId: integer('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<Role>().notNull(),
    scopeWhatsappAccountIds: integer('scope_whatsapp_account_ids').array().notNull().default([]),
    scopeKommoAccountIds: integer('scope_kommo_account_ids').array().notNull().default([]),
    sessionVersion: integer('session_version').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.userId] })],
);
