// PLACEHOLDER (issue 13, pre-flight branch): the rate-card part replaces this whole file at
// merge with the real estimate. Only the signature of `estimateCost` is relied upon.
import type { Db } from '../../db/client';

/** Placeholder: no rate card yet, every recipient is "sin tarifa". */
export async function estimateCost(
  _db: Db,
  _userId: number,
  input: { category: string; at: Date; recipientsByCountry: Array<{ country: string | null; count: number }> },
): Promise<{
  currency: 'USD';
  total: number;
  priced: number;
  unpriced: number;
  byCountry: Array<{ country: string | null; count: number; rate: number | null }>;
}> {
  const unpriced = input.recipientsByCountry.reduce((sum, c) => sum + c.count, 0);
  return {
    currency: 'USD',
    total: 0,
    priced: 0,
    unpriced,
    byCountry: input.recipientsByCountry.map((c) => ({ country: c.country, count: c.count, rate: null })),
  };
}
