import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { reopenAfterRetry } from './campaign-transitions';
import { wakeDeferred } from './recipient-transitions';

/**
 * Scheduler step: deferred recipients whose time came go back to pending; their completed
 * campaigns send again. Returns the ids of campaigns whose status changed.
 */
export async function wakeDueDeferred(db: Db): Promise<number[]> {
  return db.transaction(async (tx) => {
    const campaignIds = await wakeDeferred(tx);
    const reopened: number[] = [];
    for (const id of campaignIds) {
      const [row] = await rowsOf(tx, sql`select 1 from campaigns where id = ${id} and status = 'completed' and pending_count > 0`);
      if (!row) continue;
      await reopenAfterRetry(tx, id, true);
      reopened.push(id);
    }
    return reopened;
  });
}
