import { bigint, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users';

/** 0013: BSUIDs learned from webhooks carrying both the phone and the user id, per tenant. */
export const contactBsuids = pgTable(
  'contact_bsuids',
  {
    userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    phoneKey: text('phone_key').notNull(),
    bsuid: text('bsuid').notNull(),
    learnedAt: timestamp('learned_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.phoneKey] })],
);

/** 0013: webhook changes recorded as Meta sent them (tenant-scoped through the WABA). */
export const metaEvents = pgTable('meta_events', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  wabaId: text('waba_id').notNull(),
  field: text('field').notNull(),
  phoneNumberId: text('phone_number_id'),
  value: jsonb('value').notNull(),
  eventAt: timestamp('event_at', { withTimezone: true }),
  receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
});
