import { bigint, boolean, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { campaigns } from './campaigns';
import { kommoAccounts } from './kommo';
import { users } from './users';

/** 0025: one write-back to Kommo per completed campaign (see engine/kommo-writeback). */
export const kommoWritebacks = pgTable('kommo_writebacks', {
  campaignId: integer('campaign_id').primaryKey().references(() => campaigns.id, { onDelete: 'cascade' }),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  kommoAccountId: integer('kommo_account_id').notNull().references(() => kommoAccounts.id, { onDelete: 'cascade' }),
  lateUntil: timestamp('late_until', { withTimezone: true }).notNull(),
  lateCheckedAt: timestamp('late_checked_at', { withTimezone: true }),
  lastError: text('last_error'),
  errorStreak: integer('error_streak').notNull().default(0),
  retryAt: timestamp('retry_at', { withTimezone: true }),
  leaseOwner: text('lease_owner'),
  leaseExpiresAt: timestamp('lease_expires_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  finishedAt: timestamp('finished_at', { withTimezone: true }),
});

export type WritebackStage = 'note' | 'note_unsure' | 'tags' | 'lead' | 'done' | 'failed';
export type WritebackKind = 'result' | 'reply' | 'opt_out';

/** 0025: per recipient what to write to Kommo and how far it got. */
export const kommoWritebackItems = pgTable('kommo_writeback_items', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  campaignId: integer('campaign_id').notNull().references(() => kommoWritebacks.campaignId, { onDelete: 'cascade' }),
  userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  recipientId: bigint('recipient_id', { mode: 'number' }).notNull(),
  kommoContactId: bigint('kommo_contact_id', { mode: 'number' }).notNull(),
  kind: text('kind').$type<WritebackKind>().notNull(),
  covers: text('covers').array().notNull().default([]),
  noteText: text('note_text'),
  tags: text('tags').array().notNull().default([]),
  moveLead: boolean('move_lead').notNull().default(false),
  stage: text('stage').$type<WritebackStage>().notNull(),
  noteId: bigint('note_id', { mode: 'number' }),
  noteSentAt: timestamp('note_sent_at', { withTimezone: true }),
  attempts: integer('attempts').notNull().default(0),
  error: text('error'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
