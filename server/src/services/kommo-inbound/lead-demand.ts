import type { Queryable } from '../../db/sql';

/**
 * Whether an automation of the organisation needs this account's lead events (stage moves, new
 * leads). The automatic campaigns decide it: their predicate replaces this one when they are
 * wired in; until then no account needs them. The subscription asks it (`status_lead`,
 * `add_lead`), and the catch-up runs for an account with «Mantener contactos al día» off only
 * while it is true.
 */
export type LeadDemand = (db: Queryable, account: { id: number; organizationId: number }) => Promise<boolean>;

export const needsLeadEvents: LeadDemand = async () => false;
