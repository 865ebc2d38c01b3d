import { bigint, integer, jsonb, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { campaigns } from './campaigns';
import { users } from './users';

/** 0024: a follow-up campaign's frozen audience, one row per contact with the phone it was reached at. */
export const campaignAudienceContacts = pgTable(
  'campaign_audience_contacts',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    contactId: bigint('contact_id', { mode: 'number' }).notNull(),
    phone: text('phone'),
    phoneKey: text('phone_key'),
    bsuid: text('bsuid'),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.contactId] })],
);

/**
 * 0039: a draft's explicit recipients (E.164 phone or BSUID, with their own parameters), in the
 * order they were added; frozen into campaign_recipients at the first start.
 */
export const campaignExplicitRecipients = pgTable(
  'campaign_explicit_recipients',
  {
    campaignId: integer('campaign_id')
      .notNull()
      .references(() => campaigns.id, { onDelete: 'cascade' }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    position: bigint('position', { mode: 'number' }).notNull(),
    phone: text('phone'),
    phoneKey: text('phone_key'),
    bsuid: text('bsuid'),
    params: jsonb('params').$type<Record<string, string>>(),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.position] })],
);
