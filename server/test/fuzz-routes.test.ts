import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../src/db/sql';
import { createTestApp, type TestApp } from './helpers/app';

/**
 * Every operation of the OpenAPI document, as a signed-in user, with hostile input: wrong types,
 * huge strings, deep nesting, NUL, lone surrogates, JSON in query strings, odd path ids.
 * Routes are discovered from the document, so a route added later is fuzzed too. The only
 * property asserted is the one that matters: no 5xx, ever.
 */
let t: TestApp;
let headers: Record<string, string>;
beforeAll(async () => {
  t = await createTestApp();
  ({ headers } = await t.signUp());
});
afterAll(() => t?.close());

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyProps: string[] | null;
}

function operations(doc = t.app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> }, prefix = ''): Operation[] {
  const ops: Operation[] = [];
  for (const [bare, byMethod] of Object.entries(doc.paths)) {
    const path = prefix + bare;
    for (const [method, op] of Object.entries(byMethod)) {
      const params = op.parameters ?? [];
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyProps: op.requestBody ? Object.keys(body?.properties ?? {}) : null,
      });
    }
  }
  // Signing out revokes the session the fuzzer uses, so those routes go last.
  return ops.sort((a, b) => Number(/logout/.test(a.path)) - Number(/logout/.test(b.path)));
}
interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

const MIB = 1024 * 1024;
const HUGE = 'x'.repeat(MIB - 200);
const DEEP = 10_000;
const deepArray = '['.repeat(DEEP) + ']'.repeat(DEEP);
const deepObject = '{"a":'.repeat(DEEP) + '1' + '}'.repeat(DEEP);
/** Raw JSON value texts, so lone surrogates and NULs travel escaped exactly as a client can send them. */
const BODY_VALUES = ['123', '-1.5e308', 'true', 'null', '[]', '{}', '"x"', '""', '"\\u0000"', '"\\ud800"', '"a\\udc00b"', JSON.stringify(HUGE), JSON.stringify('a@' + '.'.repeat(20_000) + '@'), '[[[[[[[[[[1]]]]]]]]]]', '[1,"a",{"b":null}]', '99999999999999999999999'];
const WHOLE_BODIES = ['', '{', 'null', '[]', '"texto"', '123', deepArray, deepObject, '{"\\ud800":1}', '{"\\u0000":1}', JSON.stringify({ x: HUGE })];
const PATH_VALUES = ['1', '0', '-1', 'abc', '1.5', '1e3', '99999999999999999999', '2147483648', '%00', '%ED%A0%80', '%F0%9F%98%80', 'x'.repeat(90), '__proto__'];
const QUERY_VALUES = [
  'x',
  '',
  '1',
  '-1',
  '99999999999999999999',
  '%00',
  '%ED%A0%80',
  encodeURIComponent('{"a":{"mode":"specific","values":["x"]}}'),
  encodeURIComponent('{"a":{"mode":"specific","values":["\\ud800"]}}'),
  encodeURIComponent('["\\u0000"]'),
  encodeURIComponent('{"a":'),
  encodeURIComponent('[' + '"a",'.repeat(20_000) + '"a"]'),
  encodeURIComponent('['.repeat(DEEP) + ']'.repeat(DEEP)),
  encodeURIComponent('{"__proto__":{"x":1}}'),
  'y'.repeat(100_000),
];

function pathWith(op: Operation, value: (name: string) => string) {
  return op.pathParams.reduce((p, name) => p.replace(`{${name}}`, value(name)), op.path);
}

async function fuzz(ops: Operation[], headers: Record<string, string>): Promise<{ failures: string[]; sent: number }> {
  const failures: string[] = [];
  let sent = 0;
  let n = 0;
  const send = async (method: string, url: string, payload?: string) => {
    sent++;
    const res = await t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...(payload === undefined ? headers : { ...headers, 'content-type': 'application/json' }), 'idempotency-key': `fuzz-${++n}` },
      payload,
    });
    if (res.statusCode >= 500) failures.push(`${res.statusCode} ${method} ${url.slice(0, 120)} ${payload?.slice(0, 80) ?? ''} → ${res.body.slice(0, 200)}`);
  };

  for (const op of ops) {
    const basePath = pathWith(op, () => '1');
    for (const name of op.pathParams) {
      for (const v of PATH_VALUES) {
        await send(op.method, pathWith(op, (n) => (n === name ? v : '1')), op.bodyProps ? '{}' : undefined);
      }
    }
    for (const name of op.queryParams) {
      for (const v of QUERY_VALUES) await send(op.method, `${basePath}?${encodeURIComponent(name)}=${v}`);
      await send(op.method, `${basePath}?${encodeURIComponent(name)}=a&${encodeURIComponent(name)}=b`);
    }
    if (op.bodyProps) {
      for (const body of WHOLE_BODIES) await send(op.method, basePath, body);
      for (const prop of op.bodyProps) {
        for (const v of BODY_VALUES) await send(op.method, basePath, `{${JSON.stringify(prop)}:${v}}`);
      }
    }
  }
  return { failures, sent };
}

describe('fuzzing every route of the OpenAPI document', () => {
  it('never answers 5xx', async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(20);
    // Every part of the contact filter is fuzzed where the filter travels (query string and body).
    for (const part of ['searchQuery', 'tags', 'tagOperator', 'excludedTags', 'customFieldFilters']) {
      expect(ops.filter((op) => op.queryParams.includes(part)).length, part).toBeGreaterThanOrEqual(4);
      expect(ops.some((op) => op.bodyProps?.includes(part)), part).toBe(true);
    }
    const { failures, sent } = await fuzz(ops, headers);
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(500);
  }, 120_000);

  it('never answers 5xx on the public API (/api/v1, with a key holding every scope)', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/docs/json' })).json();
    const ops = operations(doc, '/api/v1');
    expect(ops.length).toBeGreaterThanOrEqual(10);
    // The campaign creation's split test and numbers are fuzzed as every other field.
    const create = ops.find((op) => op.method === 'POST' && op.path === '/api/v1/campaigns');
    expect(create?.bodyProps).toEqual(expect.arrayContaining(['variants', 'ab_test', 'whatsapp_account_ids']));
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/api-keys',
      headers,
      payload: { name: 'fuzz', scopes: ['campaigns:read', 'campaigns:write', 'campaigns:send', 'contacts:read', 'templates:read', 'webhooks:manage'], rate_limit_per_minute: 10_000 },
    });
    const { failures, sent } = await fuzz(ops, { authorization: `Bearer ${created.json().key}` });
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(200);
  }, 120_000);
});

describe('fuzzing Kommo\'s webhook (form bodies, public)', () => {
  it('never answers 5xx, with a known secret or not', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/api/kommo/accounts', headers, payload: { subdomain: 'fuzzhooks', access_token: 'tok', phone_field_id: 1 } });
    expect(created.statusCode).toBe(201);
    const [{ hook_secret: secret }] = await rowsOf<{ hook_secret: string }>(t.ctx.db, sql`select hook_secret from kommo_accounts where id = ${created.json().id}`);
    const FORMS = [
      '',
      '=',
      '&&&',
      'a',
      'leads[status][0][id]=1&leads[status][0][status_id]=2&leads[status][0][pipeline_id]=3',
      'contacts[add][0][id]=99999999999999999999',
      'contacts[add][0][id]=-1&contacts[update][0][id]=1.5&contacts[delete][0][id]=abc',
      'contacts[add]=1',
      'contacts[add][0]=1',
      'leads=x&contacts=y&account=z',
      '__proto__[polluted]=1',
      'a[constructor][prototype][x]=1',
      'a[][][]=1',
      `a${'[0]'.repeat(20)}=1`,
      Array.from({ length: 6000 }, (_, i) => `k${i}=1`).join('&'),
      Array.from({ length: 600 }, (_, i) => `contacts[add][${i}][id]=${i + 1}`).join('&'),
      'contacts[add][0][id]=%00',
      'contacts[add][0][id]=%ED%A0%80',
      'a%5B=1',
      'a=%',
      `x=${'y'.repeat(MIB)}`,
      `account[subdomain]=${'s'.repeat(500)}&contacts[add][0][id]=1`,
    ];
    const failures: string[] = [];
    for (const path of [secret, secret.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), '1', '%00', 'x'.repeat(300)]) {
      for (const payload of FORMS) {
        for (const type of ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded; charset=utf-8', 'application/json', 'multipart/form-data']) {
          const res = await t.app.inject({ method: 'POST', url: `/api/kommo-hooks/${path}`, headers: { 'content-type': type }, payload });
          if (res.statusCode >= 500) failures.push(`${res.statusCode} ${path.slice(0, 10)} ${type} ${payload.slice(0, 60)} → ${res.body.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

