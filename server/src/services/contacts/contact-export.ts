import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import type { Db } from '../../db/client';
import { rowsOf } from '../../db/sql';
import { CONTACT_COLUMNS, contactFilterSql, toContactRow } from './filter-engine';
import type { CsvFormat } from '@masivo/contract/common';
import { CSV_BOM, csvRow } from '../../lib/csv';

const BATCH = 2_000;

/**
 * The filtered contacts as CSV text chunks. Rows are read in id order, a batch at a time
 * (keyset, not offset), so memory stays flat and late batches cost what early ones do. `format`
 * picks the dialect (lib/csv.ts): comma, or semicolon for Excel in Spanish.
 */
export async function* exportContactsCsv(
  db: Db,
  p: { userId: number; accountId: number; filter: ContactFilter; fieldNames: string[]; format?: CsvFormat; counted?: { rows: number } },
): AsyncGenerator<string> {
  yield CSV_BOM + csvRow(['ID Kommo', 'Nombre', 'Nombre de pila', 'Apellido', 'Teléfono', 'Teléfono original', 'Email', 'Etiquetas', ...p.fieldNames], p.format);
  const where = contactFilterSql(p);
  let lastId = 0;
  for (;;) {
    const batch = await rowsOf<Parameters<typeof toContactRow>[0]>(
      db,
      sql`select ${CONTACT_COLUMNS} from contacts c where ${where} and c.id > ${lastId} order by c.id limit ${BATCH}`,
    );
    if (batch.length === 0) return;
    let chunk = '';
    for (const raw of batch) {
      const c = toContactRow(raw);
      lastId = c.id;
      chunk += csvRow([
        String(c.kommo_id),
        c.name,
        c.first_name,
        c.last_name,
        c.phone,
        c.phone_raw,
        c.email,
        c.tags_array.join(', '),
        ...p.fieldNames.map((f) => (Object.hasOwn(c.custom_fields, f) ? c.custom_fields[f] : undefined)),
      ], p.format);
    }
    // Counted for the export's activity-log entry.
    if (p.counted) p.counted.rows += batch.length;
    yield chunk;
    if (batch.length < BATCH) return;
    // The embedded database answers on the event loop and in microtasks: without a turn of the
    // loop between batches, a long export would hold timers (the sender's pacer, leases) until it ends.
    await nextTurn();
  }
}
