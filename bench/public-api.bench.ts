/**
 * The public API (/api/v1), on PostgreSQL:
 *   - what an API key's check adds to a request (target: under 1 ms p95): the key with its
 *     creator's membership, in one statement (the last use is written at most every 30 s);
 *   - the rate limit's shared window (one statement per request) and a whole GET through the API;
 *   - 100,000 explicit recipients added through the API in calls of 1,000 (target: ≥ 5,000
 *     recipients/s), each POST with its Idempotency-Key.
 *
 *   npx tsx bench/public-api.bench.ts [--recipients 100000] [--runs 400]
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { buildApp } from '../server/src/app';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { rowsOf } from '../server/src/db/sql';
import { databaseRateLimitStore } from '../server/src/services/api-keys/request-windows';
import { insertKommoAccount, insertMappings, insertTemplate, insertWhatsAppAccount } from '../server/test/helpers/campaign-fixtures';
import { openBenchDatabase } from './lib/database';
import { fmt, percentileColumns, timeRuns } from './lib/stats';

const { values: args } = parseArgs({ options: { recipients: { type: 'string', default: '100000' }, runs: { type: 'string', default: '400' } } });
const RECIPIENTS = Number(args.recipients);
const RUNS = Number(args.runs);

const bench = await openBenchDatabase('postgres', 'bench_public_api', { poolSize: 4 });
let failed = false;
try {
  const { database } = bench;
  const ctx = createContext(loadConfig({ APP_SECRET: 'bench-secret-bench-secret-bench-secret', DATA_DIR: bench.dataDir, LOG_LEVEL: 'silent' }), database);
  const app = await buildApp(ctx);
  await app.ready();
  const [{ id: userId }] = await rowsOf<{ id: number }>(database.db, sql`insert into users (email, password_hash) values ('api@example.com', 'x') returning id`);
  await database.db.execute(sql`insert into organizations (id, name) values (${userId}, 'Bench')`);
  await database.db.execute(sql`insert into organization_members (organization_id, user_id, role) values (${userId}, ${userId}, 'owner')`);
  const kommoAccountId = await insertKommoAccount(database.db, ctx.secrets, userId, 'bench');
  const whatsappAccountId = await insertWhatsAppAccount(database.db, ctx.secrets, userId, { kommoAccountId, phoneNumberId: '990001', wabaId: '990002', token: 'tok' });
  const templateId = await insertTemplate(database.db, userId, whatsappAccountId);
  await insertMappings(database.db, userId, templateId);
  const created = await ctx.apiKeys.create(
    { orgId: userId, userId, role: 'owner', scope: { whatsapp_account_ids: [], kommo_account_ids: [] } },
    { name: 'bench', scopes: ['campaigns:read', 'campaigns:write', 'campaigns:send', 'templates:read'], rate_limit_per_minute: 10_000 },
  );
  const headers = { authorization: `Bearer ${created.key}` };
  const { token } = await ctx.auth.reissue(userId, userId);

  const rows: Record<string, string | number>[] = [];
  const row = (name: string, values: number[], target?: number) => {
    const cols = percentileColumns('', values, target);
    rows.push({ measure: name, ...cols });
    if (target && Object.values(cols).some((v) => String(v).includes('MISS'))) failed = true;
  };
  row('a member session with its membership (for comparison)', await timeRuns(() => ctx.auth.session(token), { runs: RUNS }));
  row('an API key with its creator’s membership', await timeRuns(() => ctx.apiKeys.authenticate(created.key, '127.0.0.1'), { runs: RUNS }), 1);
  const Store = databaseRateLimitStore(database.db);
  const store = new Store();
  row('the rate limit’s shared window', await timeRuns(() => new Promise<void>((resolve, reject) => store.incr('bench', (err) => (err ? reject(err) : resolve()), 60_000)), { runs: RUNS }));
  row(
    'GET /api/v1/templates (whole request)',
    await timeRuns(async () => {
      const res = await app.inject({ method: 'GET', url: '/api/v1/templates', headers });
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    }, { runs: RUNS }),
  );
  console.log('\nPer request (ms)');
  console.table(rows);

  // 100,000 explicit recipients through the API, 1,000 a call.
  const campaign = await app.inject({
    method: 'POST',
    url: '/api/v1/campaigns',
    headers: { ...headers, 'idempotency-key': 'bench-create' },
    payload: { name: 'Explícita', whatsapp_account_id: whatsappAccountId, template_id: templateId },
  });
  if (campaign.statusCode !== 201) throw new Error(`create → ${campaign.statusCode} ${campaign.body}`);
  const id = campaign.json().id as number;
  const started = performance.now();
  for (let call = 0; call * 1000 < RECIPIENTS; call++) {
    const recipients = Array.from({ length: Math.min(1000, RECIPIENTS - call * 1000) }, (_, i) => ({
      phone: `+54911${String(call * 1000 + i).padStart(8, '0')}`,
      params: { variable_1: `Cliente ${call * 1000 + i}` },
    }));
    const res = await app.inject({ method: 'POST', url: `/api/v1/campaigns/${id}/recipients`, headers: { ...headers, 'idempotency-key': `bench-${call}` }, payload: { recipients } });
    if (res.statusCode !== 200) throw new Error(`recipients → ${res.statusCode} ${res.body.slice(0, 300)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const rate = RECIPIENTS / seconds;
  const ok = rate >= 5_000;
  failed ||= !ok;
  console.log(`\n${fmt(RECIPIENTS)} explicit recipients through POST /api/v1/campaigns/{id}/recipients (1,000 a call):`);
  console.log(`  ${seconds.toFixed(1)} s, ${fmt(rate)} recipients/s (target ≥ 5,000) ${ok ? 'ok' : 'MISS'}`);
  await app.close();
} finally {
  await bench.close();
}
process.exit(failed ? 1 : 0);
