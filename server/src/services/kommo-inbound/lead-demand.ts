import type { Db } from '../../db/client';
import type { Queryable } from '../../db/sql';
import { automationsNeedLeadEvents } from '../automations/lead-events';

/**
 * Whether an automation of the organisation needs this account's lead events (stage moves, new
 * leads): an automatic campaign on it that is switched on or paused (it records while paused).
 * The subscription asks it (`status_lead`, `add_lead`), and the catch-up runs for an account
 * with «Mantener contactos al día» off only while it is true.
 */
export type LeadDemand = (db: Queryable, account: { id: number; organizationId: number }) => Promise<boolean>;

export const needsLeadEvents: LeadDemand = (db, account) => automationsNeedLeadEvents(db as Db, account.organizationId, account.id);
