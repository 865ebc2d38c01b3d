import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { jsonParam } from '../../db/sql';
import type { MetaChange } from './webhook-payload';

/** A value larger than this is recorded as a marker, not in full (the raw POST was bounded already). */
const MAX_VALUE_CHARS = 20_000;

/**
 * Records webhook changes in meta_events, as Meta sent them. Nothing reads them yet: they are
 * kept so an operator (or a later screen) can see what Meta said about an account, and so a
 * field we do not handle today is not lost. Tenant scope is the WABA (`waba_id`): a tenant may
 * see the events of the WABAs its verified WhatsApp accounts belong to.
 */
export async function recordMetaEvents(db: Db, changes: MetaChange[]): Promise<void> {
  if (!changes.length) return;
  const rows = changes.map((c) => {
    const text = JSON.stringify(c.value);
    return {
      waba: c.wabaId.slice(0, 100),
      field: c.field.slice(0, 100) || '(sin campo)',
      phone: c.phoneNumberId?.slice(0, 100) ?? null,
      value: text.length > MAX_VALUE_CHARS ? { truncated: true, chars: text.length } : c.value,
      at: c.at && Number.isFinite(c.at.getTime()) ? c.at.toISOString() : null,
    };
  });
  await db.execute(sql`insert into meta_events (waba_id, field, phone_number_id, value, event_at)
      select v.waba, v.field, v.phone, v.value, v.at
      from jsonb_to_recordset(${jsonParam(rows)}) as v(waba text, field text, phone text, value jsonb, at timestamptz)`);
}
