import { date, integer, numeric, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users';

/** 0018: a tenant that replaced the shipped rate card; no row = the shipped default applies. */
export const rateCards = pgTable('rate_cards', {
  userId: integer('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** 0018: one rate of a tenant's card: category × market, in force from `effective_from`. */
export const rateCardRates = pgTable('rate_card_rates', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  userId: integer('user_id')
    .notNull()
    .references(() => rateCards.userId, { onDelete: 'cascade' }),
  category: text('category').notNull(),
  market: text('market').notNull(),
  effectiveFrom: date('effective_from', { mode: 'string' }).notNull(),
  /** Null = "sin tarifa" from this date. */
  usdPerMessage: numeric('usd_per_message', { precision: 12, scale: 6 }),
  source: text('source'),
  sourceDate: date('source_date', { mode: 'string' }),
});
