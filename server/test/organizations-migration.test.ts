import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import { createContext } from '../src/context';
import type { Database } from '../src/db/client';
import { migrate } from '../src/db/migrate';
import { rowsOf } from '../src/db/sql';
import { hashPassword } from '../src/services/auth/passwords';
import { insertContacts, seedCampaignWorld } from './helpers/campaign-fixtures';
import { openTestDatabase, testConfig } from './helpers/app';

/**
 * An existing database of the release before organisations (every migration up to 0032) filled
 * with two users' data; 0033 turns each user into the owner of an organisation holding exactly
 * what they owned. Every tenant row is compared before and after, and each user signs in and
 * sees their own campaigns and nothing of the other's.
 */
const REAL_DIR = join(dirname(fileURLToPath(import.meta.url)), '../src/db/migrations');
const ALL = readdirSync(REAL_DIR).filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f)).sort();
const BEFORE = ALL.filter((f) => f < '0033');

let database: Database;
let drop: () => Promise<void>;
let dir: string;
const users: { id: number; email: string }[] = [];

const TENANT_TABLES = ['kommo_accounts', 'whatsapp_accounts', 'templates', 'template_variable_mappings', 'contacts', 'blacklist', 'campaigns', 'campaign_recipients'];

async function snapshot() {
  const out: Record<string, unknown> = {};
  for (const table of TENANT_TABLES) {
    out[table] = await rowsOf(database.db, sql`select * from ${sql.identifier(table)} order by 1`);
  }
  return JSON.parse(JSON.stringify(out, (_k, v) => (typeof v === 'bigint' ? String(v) : v)));
}

beforeAll(async () => {
  ({ database, drop } = await openTestDatabase());
  dir = mkdtempSync(join(tmpdir(), 'masivo-orgs-'));
  for (const f of BEFORE) cpSync(join(REAL_DIR, f), join(dir, f));
  expect(await migrate(database, { dir })).toEqual(BEFORE);
  const secrets = createContext(testConfig(), database).secrets;
  const passwordHash = await hashPassword('secreto123');
  for (const [i, name] of [['Lucía', 'Gómez'], ['', '']].entries()) {
    const email = `previo${i}@example.com`;
    const [row] = await rowsOf<{ id: number }>(
      database.db,
      sql`insert into users (email, password_hash, first_name, last_name) values (${email}, ${passwordHash}, ${name[0]}, ${name[1]}) returning id`,
    );
    users.push({ id: row!.id, email });
    const world = await seedCampaignWorld(database.db, secrets, row!.id, {
      number: { phoneNumberId: `77000${i}`, wabaId: `77100${i}`, token: `tok-${i}`, verifyToken: `v-${i}` },
      subdomain: `previo${i}`,
    });
    await insertContacts(database.db, row!.id, world.kommoAccountId, 25 + i);
    await rowsOf(
      database.db,
      sql`insert into campaigns (user_id, name, kommo_account_id, whatsapp_account_id, template_id, filters)
          values (${row!.id}, ${`Campaña previa ${i}`}, ${world.kommoAccountId}, ${world.whatsappAccountId}, ${world.templateId}, '{}'::jsonb)`,
    );
  }
});
afterAll(async () => {
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

describe('0033: every user becomes the owner of an organisation holding what they owned', () => {
  it('keeps every tenant row as it was and founds one organisation per user with the user’s id', async () => {
    const before = await snapshot();
    for (const f of ALL) cpSync(join(REAL_DIR, f), join(dir, f));
    expect(await migrate(database, { dir })).toEqual(ALL.filter((f) => f >= '0033'));
    const after = await snapshot();
    for (const table of TENANT_TABLES) {
      // campaigns gained created_by (null: created by the founder), and later migrations add
      // columns of their own (the Kommo accounts' webhook and catch-up state, …): every column
      // there was before keeps its value.
      const columns = Object.keys(before[table][0] ?? {}).filter((k) => k !== 'created_by');
      const strip = (rows: Record<string, unknown>[]) => rows.map((r) => Object.fromEntries(columns.map((k) => [k, r[k]])));
      expect(strip(after[table]), table).toEqual(strip(before[table]));
    }
    const orgs = await rowsOf<{ id: number; name: string }>(database.db, sql`select id, name from organizations order by id`);
    expect(orgs).toEqual([
      { id: users[0]!.id, name: 'Lucía Gómez' },
      { id: users[1]!.id, name: users[1]!.email },
    ]);
    const members = await rowsOf(database.db, sql`select organization_id, user_id, role from organization_members order by user_id`);
    expect(members).toEqual(users.map((u) => ({ organization_id: u.id, user_id: u.id, role: 'owner' })));
  });

  it('each user signs in as owner and sees exactly their own campaigns and contacts', async () => {
    const ctx = createContext(testConfig(), database);
    const app = await buildApp(ctx);
    await app.ready();
    try {
      for (const [i, u] of users.entries()) {
        const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { email: u.email, password: 'secreto123' } });
        expect(login.statusCode, login.body).toBe(200);
        const headers = { authorization: `Bearer ${login.json().token}` };
        const me = await app.inject({ method: 'GET', url: '/api/me', headers });
        expect(me.json()).toMatchObject({ organization: { id: u.id }, role: 'owner' });
        const campaigns = await app.inject({ method: 'GET', url: '/api/campaigns', headers });
        expect(campaigns.json().map((c: { name: string }) => c.name)).toEqual([`Campaña previa ${i}`]);
      }
    } finally {
      await app.close();
    }
  });
});
