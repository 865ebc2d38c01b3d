import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client';
import { checksumOf, ChangedMigrationError, migrate } from '../src/db/migrate';
import * as schema from '../src/db/schema/index';
import { rowsOf } from '../src/db/sql';
import { openTestDatabase } from './helpers/app';

/**
 * Applied migrations are immutable (a start refuses a changed one, naming it), files added later
 * still apply, and the drizzle tables mirror what the migrations built.
 */

const REAL_DIR = join(dirname(fileURLToPath(import.meta.url)), '../src/db/migrations');
const ALL = readdirSync(REAL_DIR).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
const EARLY = ALL.filter((f) => f <= '0005');

let database: Database;
let drop: () => Promise<void>;
let dir: string;

const recorded = () =>
  rowsOf<{ name: string; checksum: string | null }>(database.db, sql`select name, checksum from schema_migrations order by name`);

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase());
  dir = mkdtempSync(join(tmpdir(), 'masivo-migrations-'));
  for (const f of EARLY) cpSync(join(REAL_DIR, f), join(dir, f));
});

afterAll(async () => {
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('migration checksums', () => {
  it('records a checksum for every applied file', async () => {
    expect(await migrate(database, { dir })).toEqual(EARLY);
    expect(await recorded()).toEqual(EARLY.map((name) => ({ name, checksum: checksumOf(readFileSync(join(dir, name), 'utf8')) })));
  });

  it('fills the checksums of a database migrated before they existed', async () => {
    await database.db.execute(sql`alter table schema_migrations drop column checksum`);
    expect(await migrate(database, { dir })).toEqual([]);
    expect((await recorded()).every((r) => r.checksum === checksumOf(readFileSync(join(dir, r.name), 'utf8')))).toBe(true);
  });

  it('applies files added later (another engineer’s 0010, 0011…) after the checked ones', async () => {
    for (const f of ALL) cpSync(join(REAL_DIR, f), join(dir, f));
    expect(await migrate(database, { dir })).toEqual(ALL.filter((f) => !EARLY.includes(f)));
    expect((await recorded()).map((r) => r.name)).toEqual(ALL);
  });

  it('refuses to start when an applied file changed, names it, and applies nothing', async () => {
    const edited = join(dir, '0002_kommo.sql');
    writeFileSync(edited, readFileSync(edited, 'utf8') + '\ncreate table sneaked_in (id int);\n');
    writeFileSync(join(dir, '9999_new.sql'), 'create table brand_new (id int);\n');
    const err = await migrate(database, { dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChangedMigrationError);
    expect((err as Error).message).toMatch(/0002_kommo\.sql cambió después de aplicarse/);
    const tables = await rowsOf<{ name: string }>(
      database.db,
      sql`select table_name as name from information_schema.tables
          where table_schema = current_schema() and table_name in ('sneaked_in', 'brand_new')`,
    );
    expect(tables).toEqual([]);
    expect((await recorded()).map((r) => r.name)).toEqual(ALL);
  });

  it('ignores line-ending conversions of a checkout', () => {
    expect(checksumOf('select 1;\r\nselect 2;\r\n')).toBe(checksumOf('select 1;\nselect 2;\n'));
  });
});

describe('drizzle schema against the migrated database', () => {
  it('every drizzle table and column exists with the same nullability, and every column of those tables is mirrored', async () => {
    const columns = await rowsOf<{ table_name: string; column_name: string; is_nullable: string }>(
      database.db,
      sql`select table_name, column_name, is_nullable from information_schema.columns where table_schema = current_schema()`,
    );
    const inDatabase = new Map<string, Map<string, boolean>>();
    for (const c of columns) {
      if (!inDatabase.has(c.table_name)) inDatabase.set(c.table_name, new Map());
      inDatabase.get(c.table_name)!.set(c.column_name, c.is_nullable === 'YES');
    }
    const drift: string[] = [];
    const tables = Object.values(schema as Record<string, unknown>).filter((v): v is PgTable => v instanceof PgTable);
    expect(tables.length).toBeGreaterThan(5);
    for (const table of tables) {
      const { name, columns: declared } = getTableConfig(table);
      const actual = inDatabase.get(name);
      if (!actual) {
        drift.push(`${name}: table missing in the database`);
        continue;
      }
      for (const col of declared) {
        if (!actual.has(col.name)) drift.push(`${name}.${col.name}: missing in the database`);
        else if (actual.get(col.name) !== !col.notNull) drift.push(`${name}.${col.name}: nullable ${actual.get(col.name)} in the database`);
      }
      const mirrored = new Set(declared.map((c) => c.name));
      for (const col of actual.keys()) if (!mirrored.has(col)) drift.push(`${name}.${col}: not in the drizzle schema`);
    }
    expect(drift).toEqual([]);
  });
});
