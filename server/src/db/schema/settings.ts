import { integer, pgTable, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users';

/** 0019: the tenant's frequency cap (at most `maxMessages` marketing messages per person in `days` days); no row = off. */
export const frequencyCaps = pgTable('frequency_caps', {
  userId: integer('user_id').primaryKey().references(() => users.id, { onDelete: 'cascade' }),
  maxMessages: integer('max_messages').notNull(),
  days: integer('days').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
