/**
 * `npm run bench -- pglite-bounds`: the embedded database cannot cancel a statement (PGlite has no
 * timer signal, so `statement_timeout` is ignored) and runs every query on the event loop. The
 * console therefore bounds every query a user can trigger by design (filter caps, account scoping,
 * bounded offsets, keyset batches, cached filter options). This bench proves the bound at the
 * embedded database's intended scale: it sends the worst request of each kind that the contract
 * allows, on 200,000 contacts, and prints the longest event-loop stall each one caused against
 * DB_STATEMENT_TIMEOUT_MS (the bound PostgreSQL enforces with a real timeout).
 *
 * Options: --contacts N (default 200000).
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { buildApp } from '../server/src/app';
import { loadConfig } from '../server/src/config';
import { createContext } from '../server/src/context';
import { rowsOf } from '../server/src/db/sql';
import { openBenchDatabase } from './lib/database';

const { values: args } = parseArgs({ options: { contacts: { type: 'string', default: '200000' } } });
const SIZE = Number(args.contacts);

const config = loadConfig({
  APP_SECRET: 'bench-app-secret-bench-app-secret',
  DATA_DIR: '/tmp/masivo-bench',
  LOG_LEVEL: 'silent',
  REGISTER_RATE_LIMIT: '1000',
});
const BOUND = config.DB_STATEMENT_TIMEOUT_MS;

const bench = await openBenchDatabase('pglite', 'masivo-bench-bounds');
const { database } = bench;
const ctx = createContext(config, database);
const app = await buildApp(ctx);
await app.ready();

const reg = await app.inject({
  method: 'POST',
  url: '/api/auth/register',
  payload: { first_name: 'Bench', last_name: 'Bounds', email: 'bounds@example.com', password: 'secreto123' },
});
const { token, user } = reg.json() as { token: string; user: { id: number } };
const headers = { authorization: `Bearer ${token}` };

const one = async <T>(q: ReturnType<typeof sql>) => (await rowsOf<T>(database.db, q))[0]!;
const { id: accountId } = await one<{ id: number }>(sql`insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id)
  values (${user.id}, 'bounds', ${ctx.secrets.seal('kommo-token')}, 1) returning id`);
const { id: waId } = await one<{ id: number }>(sql`insert into whatsapp_accounts (user_id, name, phone_number, phone_number_id,
    access_token_enc, business_account_id, kommo_account_id, owner_verified_at)
  values (${user.id}, 'Bench', '+5491100000000', '1001', ${ctx.secrets.seal('tok')}, '2001', ${accountId}, now()) returning id`);
const { id: templateId } = await one<{ id: number }>(sql`insert into templates (user_id, whatsapp_account_id, name, language, category, status, components)
  values (${user.id}, ${waId}, 'promo', 'es', 'marketing', 'approved', ${JSON.stringify([{ type: 'BODY', text: 'Hola' }])}::jsonb) returning id`);

console.log(`PGlite: loading ${SIZE.toLocaleString('en')} contacts...`);
let started = performance.now();
for (let from = 1; from <= SIZE; from += 50_000) {
  const to = Math.min(SIZE, from + 49_999);
  await rowsOf(database.db, sql`insert into contacts (user_id, account_id, kommo_id, name, first_name, last_name, email, phone, phone_raw, tags, custom_fields)
    select ${user.id}, ${accountId}, i, 'Cliente ' || i, 'Nombre' || i, 'Apellido' || (i % 97), 'cliente' || i || '@correo.com',
      '+54911' || lpad(i::text, 8, '0'), '11 ' || lpad(i::text, 8, '0'),
      array['etiqueta' || (i % 31), 'grupo' || (i % 7)],
      jsonb_build_object('Ciudad', 'Ciudad ' || (i % 50), 'Plan', case when i % 3 = 0 then 'Pro' else 'Base' end, 'Origen' || (i % 40), 'x')
    from generate_series(${from}::int, ${to}::int) as i`);
}
console.log(`  loaded in ${((performance.now() - started) / 1000).toFixed(1)} s`);

// The worst filter the contract admits: every custom-field slot used with a contains (a scan per
// field), the longest search, and the value budget spent on tags and specific values.
const longText = (n: number) => 'zq'.repeat(n / 2);
const worstFilter = {
  searchQuery: longText(200),
  tags: Array.from({ length: 1_000 }, (_, i) => `etiqueta-inexistente-${i}`),
  tagOperator: 'OR',
  customFieldFilters: Object.fromEntries(
    Array.from({ length: 50 }, (_, i) =>
      i < 25
        ? [`Campo${i}`, { mode: 'manual', manualValue: longText(500) }]
        : [`Campo${i}`, { mode: 'specific', values: Array.from({ length: 40 }, (_, j) => `valor-${i}-${j}`) }],
    ),
  ),
};
// Query strings are capped at 20,000 characters, so GET routes carry a smaller worst case.
const worstQueryFilter = {
  searchQuery: longText(200),
  customFieldFilters: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`C${i}`, { mode: 'manual', manualValue: longText(300) }])),
};
const qs = (f: Record<string, unknown>) =>
  Object.entries(f)
    .map(([k, v]) => `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`)
    .join('&');

/** The longest gap between ticks of a 5 ms timer while `run` is in progress: how long the loop was frozen. */
async function longestStall<T>(run: () => Promise<T>): Promise<{ result: T; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last - 5);
    last = now;
  }, 5);
  try {
    const result = await run();
    stall = Math.max(stall, performance.now() - last - 5);
    return { result, stall: Math.max(0, stall) };
  } finally {
    clearInterval(ticker);
  }
}

const rows: Record<string, string | number>[] = [];
async function measure(name: string, run: () => Promise<{ statusCode: number }>) {
  // A data change first, so caches do not hide the work.
  await rowsOf(database.db, sql`update contacts set name = name where id = (select min(id) from contacts where account_id = ${accountId})`);
  started = performance.now();
  const { result: res, stall } = await longestStall(run);
  const took = performance.now() - started;
  rows.push({
    request: name,
    status: res.statusCode,
    'duration ms': Math.round(took),
    'max event-loop stall ms': Math.round(stall),
    [`bound ${BOUND} ms`]: stall < BOUND ? 'ok' : 'EXCEEDED',
  });
}

await measure('GET /contacts (user-scoped, offset 10,000)', () =>
  app.inject({ method: 'GET', url: '/api/contacts?limit=100&offset=10000', headers }),
);
await measure('GET /contacts/:id/filtered (worst query-string filter)', () =>
  app.inject({ method: 'GET', url: `/api/contacts/${accountId}/filtered?limit=100&offset=10000&${qs(worstQueryFilter)}`, headers }),
);
await measure('GET /contacts/:id/filtered (search "a", offset 10,000)', () =>
  app.inject({ method: 'GET', url: `/api/contacts/${accountId}/filtered?limit=100&offset=10000&searchQuery=a`, headers }),
);
await measure('GET /contacts/:id/filter-options (after a change)', () =>
  app.inject({ method: 'GET', url: `/api/contacts/${accountId}/filter-options`, headers }),
);
await measure('POST /contacts/:id/export (worst body filter)', () =>
  app.inject({ method: 'POST', url: `/api/contacts/${accountId}/export`, headers, payload: { ...worstFilter, format: 'csv' } }),
);
await measure('POST /contacts/:id/export (every contact)', () =>
  app.inject({ method: 'POST', url: `/api/contacts/${accountId}/export`, headers, payload: { format: 'csv' } }),
);
await measure('POST /campaigns (count of the worst body filter)', () =>
  app.inject({
    method: 'POST',
    url: '/api/campaigns',
    headers,
    payload: { name: 'peor', kommo_account_id: accountId, whatsapp_account_id: waId, template_id: templateId, filters: worstFilter },
  }),
);
const everyone = await app.inject({
  method: 'POST',
  url: '/api/campaigns',
  headers,
  payload: { name: 'todos', kommo_account_id: accountId, whatsapp_account_id: waId, template_id: templateId, filters: {} },
});
await measure(`POST /campaigns/:id/start (freezes ${SIZE.toLocaleString('en')} recipients)`, () =>
  app.inject({ method: 'POST', url: `/api/campaigns/${everyone.json().id}/start`, headers }),
);
await measure('DELETE /campaigns/:id (with every recipient)', async () => {
  await app.inject({ method: 'POST', url: `/api/campaigns/${everyone.json().id}/pause`, headers });
  return app.inject({ method: 'DELETE', url: `/api/campaigns/${everyone.json().id}`, headers });
});

console.table(rows);
const worst = Math.max(...rows.map((r) => Number(r['max event-loop stall ms'])));
console.log(`worst stall ${worst} ms against the ${BOUND} ms bound → ${worst < BOUND ? 'bound holds' : 'BOUND EXCEEDED'}`);
await app.close();
await bench.close();
process.exit(worst < BOUND ? 0 : 1);
