import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { Role } from '@masivo/contract/organizations';
import { organizations } from './organizations';
import { users } from './users';

/** Mirrors 0035_invitations.sql: only the SHA-256 of a link's token is stored. */
export const invitations = pgTable('invitations', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  organizationId: integer('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  email: text('email').notNull(),
  role: text('role').$type<Role>().notNull(),
  scopeWhatsappAccountIds: integer('scope_whatsapp_account_ids').array().notNull().default([]),
  scopeKommoAccountIds: integer('scope_kommo_account_ids').array().notNull().default([]),
  invitedBy: integer('invited_by').references(() => users.id, { onDelete: 'set null' }),
  tokenHash: text('token_hash').notNull().unique(),
  status: text('status').$type<'pending' | 'accepted' | 'revoked'>().notNull().default('pending'),
  mailStatus: text('mail_status').$type<'not_sent' | 'sending' | 'sent' | 'failed'>().notNull().default('not_sent'),
  mailError: text('mail_error'),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  acceptedAt: timestamp('accepted_at', { withTimezone: true }),
  acceptedBy: integer('accepted_by').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
