/**
 * Organisations (issue "a team, not a login"), on PostgreSQL:
 *   - the upgrade to organisations (migrations 0033 onwards) over a database of the release
 *     before, filled with 1,000,000 contacts (target: under 10 s; it rewrites no big table);
 *   - what members, roles and scopes add to every request (target: under 1 ms p95): the
 *     session with its membership, the permission check, and a scoped member's visible set;
 *   - a scoped member's contact counts at 1,000,000 contacts through the API (target: p95 < 100 ms,
 *     the contacts' existing target), beside the owner's. The same filter is asked each time, so
 *     this is the screen's path with its count cache; the uncached count is contacts.bench.ts's,
 *     which a scope does not change (a scope adds only the visible-set query measured here).
 *
 *   npx tsx bench/organizations.bench.ts [--size 1000000] [--runs 40]
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { can } from '../contract/src/organizations';
import { buildApp } from '../server/src/app';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { migrate } from '../server/src/db/migrate';
import { intArray, preparedRows, rowsOf } from '../server/src/db/sql';
import { visibleResources } from '../server/src/services/organizations/member-scope';
import { openBenchDatabase } from './lib/database';
import { percentile, percentileColumns, timeRuns } from './lib/stats';
import { load } from './seed-contacts';

const { values: args } = parseArgs({ options: { size: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '40' } } });
const SIZE = Number(args.size);
const RUNS = Number(args.runs);
const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '../server/src/db/migrations');
const ALL = readdirSync(MIGRATIONS).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
const BEFORE = ALL.filter((f) => f < '0033');

const bench = await openBenchDatabase('postgres', 'bench_orgs', { migrate: false, poolSize: 4 });
const dir = mkdtempSync(join(tmpdir(), 'bench-orgs-migrations-'));
let failed = false;
try {
  const { database } = bench;
  for (const f of BEFORE) cpSync(join(MIGRATIONS, f), join(dir, f));
  await migrate(database, { dir });
  const ids = await load(database, SIZE);
  for (const f of ALL) cpSync(join(MIGRATIONS, f), join(dir, f));
  const started = performance.now();
  const applied = await migrate(database, { dir });
  const upgradeMs = performance.now() - started;
  console.log(`\nUpgrade to organisations over ${SIZE.toLocaleString('en')} contacts: ${applied.join(', ')}`);
  console.log(`  ${(upgradeMs / 1000).toFixed(2)} s (target < 10 s) ${upgradeMs < 10_000 ? 'ok' : 'MISS'}`);
  failed ||= upgradeMs >= 10_000;

  const ctx = createContext(loadConfig({ APP_SECRET: 'bench-secret-bench-secret-bench-secret', DATA_DIR: bench.dataDir, LOG_LEVEL: 'silent' }), database);
  const app = await buildApp(ctx);
  await app.ready();
  // The bench tenant's founder (an owner since the upgrade), and a campaign manager scoped to its Kommo account.
  const { token: ownerToken } = await ctx.auth.reissue(ids.userId, ids.userId);
  const [{ id: memberId }] = await rowsOf<{ id: number }>(database.db, sql`insert into users (email, password_hash) values ('scoped@example.com', 'x') returning id`);
  await rowsOf(
    database.db,
    sql`insert into organization_members (organization_id, user_id, role, scope_kommo_account_ids) values (${ids.userId}, ${memberId}, 'campaign_manager', ${intArray([ids.accountId])})`,
  );
  const { token: scopedToken } = await ctx.auth.reissue(memberId, ids.userId);
  const scoped = await ctx.auth.session(scopedToken);

  const rows: Record<string, string | number>[] = [];
  const row = (name: string, values: number[], target?: number) => {
    const cols = percentileColumns('', values, target);
    rows.push({ measure: name, ...cols });
    if (target && Object.values(cols).some((v) => String(v).includes('MISS'))) failed = true;
  };
  // The lookup every request made before organisations (token version, signed out), beside
  // today's, which reads the membership in the same round trip: the difference is what members add.
  const before = await timeRuns(async () => {
    const claims = await ctx.tokens.verify(ownerToken);
    await preparedRows(
      database.db,
      sql`select u.token_version as version, exists (select 1 from revoked_sessions r where r.token_hash = ${'x'.repeat(64)}) as revoked
            from users u where u.id = ${claims!.userId}::int`,
    );
  }, { runs: RUNS * 10 });
  const now = await timeRuns(() => ctx.auth.session(ownerToken), { runs: RUNS * 10 });
  row('session before organisations', before);
  row('session with its membership (every request)', now);
  const added = percentile(now, 0.95) - percentile(before, 0.95);
  rows.push({ measure: 'added by members and roles, p95', p95: `${added.toFixed(2)} ${added < 1 ? 'ok' : 'MISS'} (< 1)` });
  failed ||= added >= 1;
  row('permission check (in memory)', await timeRuns(async () => can(scoped!.role, 'contacts.view'), { runs: RUNS * 5 }), 1);
  row('scoped member: what they see', await timeRuns(() => visibleResources(database.db, ids.userId, scoped!.role, scoped!.scope), { runs: RUNS * 5 }), 1);
  const count = (token: string) => async () => {
    const res = await app.inject({ method: 'GET', url: `/api/contacts/${ids.accountId}/count?tags=${encodeURIComponent(JSON.stringify(["vip"]))}`, headers: { authorization: `Bearer ${token}` } });
    if (res.statusCode !== 200) throw new Error(`count → ${res.statusCode} ${res.body}`);
  };
  row(`owner: contact count over the API (${SIZE.toLocaleString('en')})`, await timeRuns(count(ownerToken), { runs: RUNS }), 100);
  row(`scoped member: contact count over the API (${SIZE.toLocaleString('en')})`, await timeRuns(count(scopedToken), { runs: RUNS }), 100);
  console.log('\nPer request (ms)');
  console.table(rows);
  await app.close();
} finally {
  await bench.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
