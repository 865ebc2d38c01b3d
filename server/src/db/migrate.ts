import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from './client';
import { rowsOf } from './sql';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Any constant works; it only has to be the same in every process of one deployment. */
const MIGRATION_LOCK_ID = 7_310_001;

/**
 * Forward-only migrations: every `NNNN_name.sql` file runs once, in name order, inside a
 * transaction. An advisory lock keeps two processes starting at once from racing.
 *
 * Each applied file's checksum is recorded, and a start refuses to run when an applied file's
 * content changed: a database created by an earlier build would otherwise silently miss what
 * the edit added (docs/OPERATIONS.md, "Migrations"). Databases migrated before checksums
 * existed get them filled from the files on their first start with this code.
 */
export async function migrate(database: Database, opts: { dir?: string } = {}): Promise<string[]> {
  const { db } = database;
  const dir = opts.dir ?? MIGRATIONS_DIR;
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      return { name, text, checksum: checksumOf(text) };
    });
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    // An index on a large table may take longer than the API's statement timeout.
    await tx.execute(sql`set local statement_timeout = 0`);
    await tx.execute(sql`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`);
    await tx.execute(sql`alter table schema_migrations add column if not exists checksum text`);
    const done = await rowsOf<{ name: string; checksum: string | null }>(tx, sql`select name, checksum from schema_migrations`);
    const recorded = new Map(done.map((r) => [r.name, r.checksum]));
    // Every applied file is checked before anything runs, so a refusal changes nothing.
    for (const file of files) {
      const checksum = recorded.get(file.name);
      if (checksum && checksum !== file.checksum) throw new ChangedMigrationError(file.name);
    }
    for (const file of files) {
      if (recorded.has(file.name)) {
        if (recorded.get(file.name) === null) {
          await tx.execute(sql`update schema_migrations set checksum = ${file.checksum} where name = ${file.name}`);
        }
        continue;
      }
      for (const statement of splitStatements(file.text)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into schema_migrations (name, checksum) values (${file.name}, ${file.checksum})`);
      applied.push(file.name);
    }
  });
  return applied;
}

/** Line endings are normalised so a checkout's CRLF conversion is not mistaken for an edit. */
export function checksumOf(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

export class ChangedMigrationError extends Error {
  constructor(readonly file: string) {
    super(
      `La migración ${file} cambió después de aplicarse (su suma de control no coincide). ` +
        'Las migraciones aplicadas no se editan: restaura el archivo y escribe el cambio en una migración nueva.',
    );
    this.name = 'ChangedMigrationError';
  }
}

/**
 * PGlite runs one statement per call, so files are split on top-level semicolons
 * (dollar-quoted bodies and comments are respected).
 */
export function splitStatements(text: string): string[] {
  const out: string[] = [];
  let current = '';
  let inDollar = false;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!inDollar && trimmed.startsWith('--')) continue;
    current += line + '\n';
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) inDollar = !inDollar;
    if (!inDollar && trimmed.endsWith(';')) {
      if (current.trim()) out.push(current.trim());
      current = '';
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}
