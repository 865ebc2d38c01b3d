import { z } from 'zod';
import type { Db } from '../../db/client';
import { defineQueue, enqueue } from '../../jobs/index';

export const KOMMO_INBOUND_QUEUE = 'kommo-inbound';

/** One drain job per account: keyed by it (one at a time across processes) and deduplicated while waiting. */
export const kommoInboundJobs = defineQueue(KOMMO_INBOUND_QUEUE, z.object({ accountId: z.number().int().positive() }), (p) => String(p.accountId));

/**
 * Asks for the account's inbox to be drained (engine/kommo-inbound). Call it after the inbox
 * row is committed: a waiting (or running) job absorbs the call, and a running one that is
 * about to finish looks at the inbox again once it is marked done, so a row committed before
 * this call is never left behind. The catch-up queues a drain for any inbox left non-empty
 * anyway (a crash between the commit and this call).
 */
export async function queueInboxDrain(db: Db, accountId: number): Promise<void> {
  await enqueue(db, kommoInboundJobs, { accountId }, { dedupeKey: `account:${accountId}` });
}
