// The hot path's statements are planned once per connection (db/sql.ts, preparedRows): the same
// rows as an unprepared run, any value quoted safely on the embedded database, the plan kept
// across transactions (committed or rolled back), on both database engines.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client';
import { jsonParam, preparedRows, rowsOf } from '../src/db/sql';
import { openTestDatabase } from './helpers/app';

let database: Database;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase());
  await database.db.execute(sql`create table prepared_probe (id int primary key, label text, at timestamptz, data jsonb)`);
});
afterAll(async () => {
  await drop();
});

const hostile = [
  "o'brien",
  "''; drop table prepared_probe; --",
  'back\\slash \\\' quote',
  "E'\\x41' $$ $tag$ ",
  'ñandú — «comillas» 🚀',
  '',
];

describe('preparedRows', () => {
  it('stores and reads back any text, number, date, null and JSON exactly', async () => {
    const at = new Date('2026-03-01T12:34:56.789Z');
    for (const [i, label] of hostile.entries()) {
      await preparedRows(
        database.db,
        sql`insert into prepared_probe (id, label, at, data) values (${i + 1}, ${label}, ${at}, ${jsonParam({ label, n: i })})`,
      );
    }
    await preparedRows(database.db, sql`insert into prepared_probe (id, label, at, data) values (${100}, ${null}, ${null}, ${null})`);
    const rows = await preparedRows<{ id: number; label: string | null; at: Date | string | null; data: { label: string } | null }>(
      database.db,
      sql`select id, label, at, data from prepared_probe where id = any(array(select (jsonb_array_elements_text(${jsonParam([1, 2, 3, 4, 5, 6, 100])}))::int)) order by id`,
    );
    expect(rows.map((r) => r.label)).toEqual([...hostile, null]);
    expect(rows.slice(0, hostile.length).map((r) => (r.data as { label: string }).label)).toEqual(hostile);
    expect(new Date(rows[0].at as string).toISOString()).toBe(at.toISOString());
    expect(rows.at(-1)).toMatchObject({ at: null, data: null });
    const [{ n }] = await rowsOf<{ n: number }>(database.db, sql`select count(*)::int as n from prepared_probe`);
    expect(n).toBe(hostile.length + 1);
  });

  it('answers like an unprepared run, many times over (past the switch to a generic plan)', async () => {
    for (let i = 0; i < 8; i++) {
      const query = sql`select id, label from prepared_probe where id >= ${i} and label is distinct from ${hostile[i % hostile.length]} order by id`;
      expect(await preparedRows(database.db, query)).toEqual(await rowsOf(database.db, query));
    }
  });

  it('keeps working inside transactions, after a rollback, and in the next transaction', async () => {
    const bump = (id: number) => sql`update prepared_probe set label = label || '+' where id = ${id} returning label`;
    await expect(
      database.db.transaction(async (tx) => {
        await preparedRows(tx, bump(1));
        throw new Error('deshacer');
      }),
    ).rejects.toThrow('deshacer');
    const [kept] = await rowsOf<{ label: string }>(database.db, sql`select label from prepared_probe where id = 1`);
    expect(kept.label).toBe(hostile[0]);
    const inTx = await database.db.transaction((tx) => preparedRows<{ label: string }>(tx, bump(1)));
    expect(inTx[0].label).toBe(`${hostile[0]}+`);
    expect((await preparedRows<{ label: string }>(database.db, bump(1)))[0].label).toBe(`${hostile[0]}++`);
  });

  it('reports a failing statement as an error and leaves the transaction to roll back', async () => {
    await expect(preparedRows(database.db, sql`insert into prepared_probe (id) values (${1})`)).rejects.toThrow();
    await expect(
      database.db.transaction(async (tx) => {
        await preparedRows(tx, sql`insert into prepared_probe (id, label) values (${200}, ${'a medias'})`);
        await preparedRows(tx, sql`insert into prepared_probe (id) values (${200})`);
      }),
    ).rejects.toThrow();
    expect(await rowsOf(database.db, sql`select 1 from prepared_probe where id = 200`)).toEqual([]);
  });
});
