import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../src/context';
import { READ_URL_NEEDS_POSTGRES } from '../src/db/client';
import { pgCode, rowsOf } from '../src/db/sql';
import { startServer } from '../src/server';
import { foldRollups } from './helpers/rollups';
import { createTestApp, openTestDatabase, testConfig, type TestApp } from './helpers/app';
import { seedCampaignWorld } from './helpers/campaign-fixtures';

/**
 * DATABASE_READ_URL: the lists, counts, charts and exports of the console's screens read the
 * replica (`ctx.readDb`), every write and every read a write depends on stays on the primary.
 * On PostgreSQL a login whose transactions are read-only stands in for the replica: a write
 * routed to it fails, and every checkout of its pool is counted, so a read that silently went
 * to the primary fails the test too.
 */
const url = process.env.TEST_DATABASE_URL;

describe('DATABASE_READ_URL in the configuration', () => {
  it('is optional, blank means unset, and must be a postgres:// address', () => {
    expect(testConfig().DATABASE_READ_URL).toBeUndefined();
    expect(testConfig({ DATABASE_READ_URL: '  ' }).DATABASE_READ_URL).toBeUndefined();
    expect(testConfig({ DATABASE_READ_URL: 'postgres://lector@replica:5432/masivo' }).DATABASE_READ_URL).toBe('postgres://lector@replica:5432/masivo');
    expect(() => testConfig({ DATABASE_READ_URL: 'mysql://replica/masivo' })).toThrow(/DATABASE_READ_URL: una dirección postgres:\/\//);
  });

  it('is refused without DATABASE_URL: the embedded database has no replicas', async () => {
    await expect(startServer(testConfig({ DATABASE_READ_URL: 'postgres://lector@127.0.0.1:5432/masivo' }))).rejects.toThrow(READ_URL_NEEDS_POSTGRES);
  });

  it('unset, readDb is the primary database object itself (no second pool)', async () => {
    const { database, drop } = await openTestDatabase();
    try {
      expect(database.readDb).toBe(database.db);
      expect(createContext(testConfig(), database).readDb).toBe(database.db);
    } finally {
      await drop();
    }
  });
});

describe.skipIf(!url)('a read replica (PostgreSQL: a read-only login stands in for it)', () => {
  const role = `replica_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let t: TestApp;
  let owner: { headers: { authorization: string }; userId: number };
  let world: Awaited<ReturnType<typeof seedCampaignWorld>>;
  /** Connections the replica's pool handed out: one per statement or transaction. */
  let replicaCheckouts = 0;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create role ${role} login`);
    await admin.query(`alter role ${role} set default_transaction_read_only = on`);
    const readUrl = new URL(url!);
    readUrl.username = role;
    readUrl.password = '';
    t = await createTestApp({ DATABASE_READ_URL: readUrl.toString() });
    // The test file's private schema, readable by the replica's login.
    const [{ schema }] = await rowsOf<{ schema: string }>(t.ctx.db, sql`select current_schema() as schema`);
    await admin.query(`grant usage on schema ${schema} to ${role}`);
    await admin.query(`grant select on all tables in schema ${schema} to ${role}`);
    (t.ctx.readDb as unknown as { $client: pg.Pool }).$client.on('acquire', () => replicaCheckouts++);

    owner = await t.signUp();
    world = await seedCampaignWorld(t.ctx.db, t.ctx.secrets, owner.userId, {
      number: { phoneNumberId: '7001', wabaId: '7002', token: 'tok-7001' },
      contacts: 30,
    });
  });

  afterAll(async () => {
    await t?.close();
    await admin?.query(`drop owned by ${role}`).catch(() => undefined);
    await admin?.query(`drop role if exists ${role}`);
    await admin?.end();
  });

  /** The request's answer and how many times it used the replica. */
  async function call(method: InjectOptions['method'], path: string, payload?: object, headers: Record<string, string> = owner.headers) {
    const before = replicaCheckouts;
    const res = await t.app.inject({ method, url: `/api${path}`, headers, ...(payload ? { payload } : {}) });
    return { res, replica: replicaCheckouts - before };
  }

  it('readDb is a pool of its own on a login whose writes fail', async () => {
    expect(t.ctx.readDb).not.toBe(t.ctx.db);
    const [who] = await rowsOf<{ user: string; ro: string }>(t.ctx.readDb, sql`select current_user as user, current_setting('transaction_read_only') as ro`);
    expect(who).toEqual({ user: role, ro: 'on' });
    const refused = await rowsOf(
      t.ctx.readDb,
      sql`insert into blacklist (user_id, account_id, phone, phone_key) values (${owner.userId}, ${world.kommoAccountId}, '+5491100000099', '5491100000099')`,
    ).then(
      () => null,
      (err: unknown) => err,
    );
    // 25006: read_only_sql_transaction.
    expect(pgCode(refused)).toBe('25006');
    // The same statement on the primary goes through: the refusal above is the login's, not the row's.
    await rowsOf(t.ctx.db, sql`insert into blacklist (user_id, account_id, phone, phone_key) values (${owner.userId}, ${world.kommoAccountId}, '+5491100000099', '5491100000099')`);
    await rowsOf(t.ctx.db, sql`delete from blacklist where phone_key = '5491100000099' and user_id = ${owner.userId}`);
  });

  it('the console’s screens: writes go to the primary, lists, counts, charts and exports to the replica', async () => {
    const k = world.kommoAccountId;
    /** A read the screens may see a moment late: answered, and from the replica. */
    const fromReplica = async (method: InjectOptions['method'], path: string, payload?: object) => {
      const { res, replica } = await call(method, path, payload);
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(200);
      expect(replica, `${method} ${path} did not read the replica`).toBeGreaterThan(0);
      return res;
    };
    /** A write, or a read that must see the latest state: answered without touching the replica. */
    const onPrimary = async (method: InjectOptions['method'], path: string, status: number, payload?: object, headers: Record<string, string> = owner.headers) => {
      const { res, replica } = await call(method, path, payload, headers);
      expect(res.statusCode, `${method} ${path}: ${res.body}`).toBe(status);
      expect(replica, `${method} ${path} used the replica`).toBe(0);
      return res;
    };

    // Sign-in stays on the primary.
    const me = (await onPrimary('GET', '/auth/me', 200)).json() as { email: string };
    await onPrimary('POST', '/auth/login', 200, { email: me.email, password: 'secreto123' }, {});

    // Contacts screen.
    expect((await fromReplica('GET', `/contacts?account_id=${k}`)).json().total).toBe(30);
    expect((await fromReplica('GET', `/contacts/${k}/count?tags=${encodeURIComponent(JSON.stringify(["vip"]))}`)).json()).toEqual({ count: 3 });
    expect((await fromReplica('GET', `/contacts/${k}/filtered?limit=5&offset=0`)).json().contacts).toHaveLength(5);
    expect((await fromReplica('GET', `/contacts/${k}/filter-options`)).json().total_contacts).toBe(30);
    expect((await fromReplica('GET', `/contacts/recipient-count?account_id=${k}`)).json()).toEqual({ count: 30 });
    const contactsCsv = await fromReplica('POST', `/contacts/${k}/export`, {});
    expect(contactsCsv.body.trim().split('\n')).toHaveLength(31);

    // Templates.
    expect((await fromReplica('GET', `/templates/account/${world.whatsappAccountId}`)).json().map((x: { name: string }) => x.name)).toEqual(['promo']);
    expect((await fromReplica('GET', `/templates/account/${world.whatsappAccountId}/status`)).json().total).toBe(1);

    // Blacklist: add and remove on the primary, the list and the search from the replica.
    const added = (await onPrimary('POST', `/blacklist/${k}`, 201, { phone: '+5491100000001', reason: 'Pidió la baja' })).json() as { id: number; phone: string };
    expect((await fromReplica('GET', `/blacklist/${k}`)).json().map((e: { id: number }) => e.id)).toEqual([added.id]);
    expect((await fromReplica('GET', `/blacklist/${k}/search?query=baja`)).json()).toHaveLength(1);
    // The check is asked before acting on a number: the primary's answer.
    expect((await onPrimary('GET', `/blacklist/${k}/check?phone=${encodeURIComponent(added.phone)}`, 200)).json().blacklisted).toBe(true);
    await onPrimary('DELETE', `/blacklist/${k}/${added.id}`, 200);
    expect((await fromReplica('GET', `/blacklist/${k}`)).json()).toEqual([]);

    // Campaigns: create and start on the primary; the detail a screen opens right after, too.
    const created = (
      await onPrimary('POST', '/campaigns', 201, {
        name: 'Réplica',
        kommo_account_id: k,
        whatsapp_account_id: world.whatsappAccountId,
        template_id: world.templateId,
        message_type: 'template',
        filters: { searchQuery: '', tags: [], tagOperator: 'OR', customFieldFilters: {} },
      })
    ).json() as { id: number };
    const started = (await onPrimary('POST', `/campaigns/${created.id}/start`, 200)).json() as { status: string; total_recipients: number };
    expect(started.status).toBe('sending');
    expect((await onPrimary('GET', `/campaigns/${created.id}`, 200)).json().status).toBe('sending');

    const list = (await fromReplica('GET', '/campaigns')).json() as Array<{ id: number; status: string }>;
    expect(list.map((c) => [c.id, c.status])).toEqual([[created.id, 'sending']]);
    // The charts read the rollups the job folds (a campaign never folded is folded on demand on
    // the primary, and read there): the job's pass first, as the worker would have run it.
    await foldRollups(t.ctx.db);
    const stats = (await fromReplica('GET', `/campaigns/${created.id}/stats`)).json() as { funnel: { attempted: number; sent: number } };
    expect(stats.funnel).toMatchObject({ attempted: started.total_recipients, sent: 0 });
    expect((await fromReplica('GET', `/campaigns/${created.id}/messages`)).json().total).toBe(started.total_recipients);
    // The follow-up count comes before creating the follow-up (which counts again): the primary's.
    expect((await onPrimary('GET', `/campaigns/${created.id}/follow-up/count?group=not_replied`, 200)).json().group).toBe('not_replied');
    const results = await fromReplica('GET', `/campaigns/${created.id}/results.csv`);
    expect(results.body.trim().split('\n')).toHaveLength(started.total_recipients + 1);

    // Dashboard.
    const pending = (await fromReplica('GET', '/dashboard/pending')).json() as { pending_messages: number };
    expect(pending.pending_messages).toBe(started.total_recipients);
    const activity = (await fromReplica('GET', '/dashboard/activity?days=7')).json() as { numbers: Array<{ whatsapp_account_id: number }> };
    expect(activity.numbers.map((n) => n.whatsapp_account_id)).toEqual([world.whatsappAccountId]);

    // Activity log: the writes above were recorded (on the primary) and are read from the replica.
    const log = (await fromReplica('GET', '/activity')).json() as { items: Array<{ action: string }> };
    expect(log.items.map((e) => e.action)).toEqual(expect.arrayContaining(['blacklist.add', 'blacklist.remove', 'campaign.create', 'campaign.start', 'contacts.export']));
    expect((await fromReplica('GET', `/campaigns/${created.id}/activity`)).json().items.length).toBeGreaterThan(0);
    const activityCsv = await fromReplica('GET', '/activity.csv');
    expect(activityCsv.body).toContain('Inició la campaña');
  });
});
