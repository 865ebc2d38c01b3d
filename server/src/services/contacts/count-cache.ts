import type { ContactFilterInput } from '@masivo/contract/contact-filter';
import type { Db } from '../../db/client';
import { contactDataVersion, createVersionedCache } from './data-version';
import { countContacts } from './filter-engine';
import { filterKey } from './recipient-count-cache';

/**
 * Filter counts (the contacts screen total, /count, the campaign form's recipient box), kept per
 * account, filter and data version. The screen asks the same few questions again and again while
 * the data stands still; a sync or any other write bumps the version and the next ask recounts.
 * The audience freeze never reads this: it selects the rows themselves, so its figure is exact.
 */
export function createCountCache(db: Db, maxEntries = 5_000) {
  const cache = createVersionedCache<number>(maxEntries);
  return {
    async count(userId: number, accountId: number, filter: ContactFilterInput): Promise<number> {
      // Read before counting: the count then reflects this version or a newer one, never an older one.
      const version = await contactDataVersion(db, accountId);
      return cache.get(accountId, version, `${userId}:${filterKey(filter)}`, () => countContacts(db, { userId, accountId, filter }));
    },
    clear: () => cache.clear(),
  };
}
