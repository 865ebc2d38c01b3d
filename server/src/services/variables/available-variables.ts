import { and, eq, inArray, sql } from 'drizzle-orm';
import { BUILT_IN_VARIABLES, customFieldKey, LEAD_VARIABLES, type AvailableVariable } from '@masivo/contract/variables';
import type { Database } from '../../db/client';
import { kommoCustomFields } from '../../db/schema/index';
import { rowsOf } from '../../db/sql';

/** Kommo's phone and email fields are the built-in phone and email. */
const BUILT_IN_CODES = ['PHONE', 'EMAIL'];
/** Enough contacts to discover field names when the field list was not synced. */
const KEY_SAMPLE = 2000;

/**
 * Built-in contact fields plus the custom fields of the given Kommo accounts (the synced
 * field list, else the names found in synced contacts), each custom field once.
 */
export async function availableVariables(database: Database, userId: number, kommoAccountIds: number[]): Promise<AvailableVariable[]> {
  const names = new Set<string>();
  if (kommoAccountIds.length) {
    const fields = await database.db
      .select({ name: kommoCustomFields.name, code: kommoCustomFields.code })
      .from(kommoCustomFields)
      .where(and(eq(kommoCustomFields.userId, userId), inArray(kommoCustomFields.accountId, kommoAccountIds)));
    for (const f of fields) if (!BUILT_IN_CODES.includes((f.code ?? '').toUpperCase())) names.add(f.name);
    if (!fields.length) {
      const keys = await rowsOf<{ key: string }>(database.db, sql`
        select distinct jsonb_object_keys(custom_fields) as key
        from (select custom_fields from contacts
              where user_id = ${userId} and account_id in (${sql.join(kommoAccountIds.map((id) => sql`${id}`), sql`, `)})
              limit ${KEY_SAMPLE}) sample`);
      for (const k of keys) names.add(k.key);
    }
  }
  const custom = [...names]
    .sort((a, b) => a.localeCompare(b, 'es'))
    .map<AvailableVariable>((name) => ({
      key: customFieldKey(name),
      displayName: name,
      category: 'custom',
      description: `Campo personalizado de Kommo: ${name}`,
    }));
  // Lead fields last: only automatic campaigns fill them (others send the default).
  return [...BUILT_IN_VARIABLES, ...custom, ...LEAD_VARIABLES];
}
