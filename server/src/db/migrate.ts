import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from './client';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Any constant works; it only has to be the same in every process of one deployment. */
const MIGRATION_LOCK_ID = 7_310_001;

/**
 * Forward-only migrations: every `NNNN_name.sql` file runs once, in name order, inside a
 * transaction. An advisory lock keeps two processes starting at once from racing.
 */
export async function migrate(database: Database): Promise<string[]> {
  const { db } = database;
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    // An index on a large table may take longer than the API's statement timeout.
    await tx.execute(sql`set local statement_timeout = 0`);
    await tx.execute(sql`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`);
    const done = (await tx.execute(sql`select name from schema_migrations`)) as unknown as {
      rows: { name: string }[];
    };
    const seen = new Set(done.rows.map((r) => r.name));
    for (const file of files) {
      if (seen.has(file)) continue;
      const text = readFileSync(join(MIGRATIONS_DIR, file), 'utf8');
      for (const statement of splitStatements(text)) await tx.execute(sql.raw(statement));
      await tx.execute(sql`insert into schema_migrations (name) values (${file})`);
      applied.push(file);
    }
  });
  return applied;
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
