import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NUMBER, accountPayload, createAccount, insertKommoAccount, startWhatsAppTestBed, type WhatsAppTestBed } from './helpers/whatsapp-fixtures';
import { rowsOf } from '../src/db/sql';

let bed: WhatsAppTestBed;
let owner: { headers: { authorization: string }; userId: number };
let stranger: { headers: { authorization: string }; userId: number };

beforeAll(async () => {
  bed = await startWhatsAppTestBed();
  owner = await bed.t.signUp();
  stranger = await bed.t.signUp();
});
afterAll(() => bed.close());

const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, headers: object, payload?: object) =>
  bed.t.app.inject({ method, url: `/api/whatsapp-accounts${url}`, headers: headers as Record<string, string>, payload });

describe('creating a WhatsApp account', () => {
  it('requires every field of spec §5 with Spanish messages', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ name: '' }, /El nombre es requerido/],
      [{ phone_number: '' }, /El número de teléfono es requerido/],
      [{ phone_number: '1234567890' }, /formato internacional \(ej: \+1234567890\)/],
      [{ phone_number: '+12ab' }, /formato internacional/],
      [{ phone_number_id: '  ' }, /El ID del número de teléfono es requerido/],
      [{ access_token: '' }, /El token de acceso es requerido/],
      [{ business_account_id: '' }, /El ID de la cuenta de negocio es requerido/],
      [{ rate_per_second: 0 }, /mínima es 1/],
      [{ rate_per_second: 1001 }, /máxima es 1000/],
      [{ surprise: true }, /.+/],
    ];
    for (const [override, message] of cases) {
      const res = await inject('POST', '', owner.headers, accountPayload(override));
      expect(res.statusCode, JSON.stringify(override)).toBe(400);
      expect(res.json().error).toMatch(message);
    }
    const missing = await inject('POST', '', owner.headers, { name: 'x' });
    expect(missing.statusCode).toBe(400);
  });

  it('stores the token encrypted, never returns it, and fills defaults', async () => {
    const res = await inject('POST', '', owner.headers, accountPayload({ phone_number: '+54 9 11 0000-0000', notes: '  ', webhook_verify_token: '' }));
    expect(res.statusCode).toBe(201);
    const account = res.json();
    expect(res.body).not.toContain(NUMBER.token);
    expect(account).not.toHaveProperty('access_token');
    expect(account).toMatchObject({
      name: 'Cuenta Principal',
      phone_number: '+5491100000000',
      phone_number_id: '1001',
      business_account_id: '2001',
      rate_per_second: 80,
      is_active: true,
      is_verified: false,
      notes: null,
      has_access_token: true,
      daily_message_count: 0,
      webhook_url: 'https://masivo.example.com/api/webhooks/whatsapp',
    });
    expect(account.webhook_verify_token).toMatch(/^[\w-]{16,}$/);
    const [row] = await rowsOf<{ access_token_enc: string }>(bed.t.ctx.db,
      sql`select access_token_enc from whatsapp_accounts where id = ${account.id}`,
    );
    expect(row!.access_token_enc).not.toContain(NUMBER.token);
    expect(bed.t.ctx.secrets.open(row!.access_token_enc)).toBe(NUMBER.token);
    await inject('DELETE', `/${account.id}`, owner.headers);
  });

  it('keeps a given verify token and rate, and refuses a duplicate number or a foreign Kommo account', async () => {
    const foreignKommo = await insertKommoAccount(bed.t, stranger.userId, 'ajeno');
    const foreign = await inject('POST', '', owner.headers, accountPayload({ kommo_account_id: foreignKommo }));
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error).toBe('Cuenta Kommo no encontrada');

    const ownKommo = await insertKommoAccount(bed.t, owner.userId, 'propio');
    const created = await createAccount(bed.t, owner.headers, {
      webhook_verify_token: 'mi-token-de-verificacion',
      rate_per_second: 250,
      kommo_account_id: ownKommo,
    });
    expect(created).toMatchObject({ webhook_verify_token: 'mi-token-de-verificacion', rate_per_second: 250, kommo_account_id: ownKommo });
    const dup = await inject('POST', '', owner.headers, accountPayload());
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toMatch(/ID de número de teléfono/);
    await inject('DELETE', `/${created.id}`, owner.headers);
  });
});

describe('an existing account', () => {
  let id: number;
  beforeAll(async () => {
    id = (await createAccount(bed.t, owner.headers, { notes: 'nota inicial' })).id;
  });

  it('is listed for its owner only and answers 404 to anyone else', async () => {
    const mine = await inject('GET', '', owner.headers);
    expect(mine.json().map((a: { id: number }) => a.id)).toContain(id);
    const theirs = await inject('GET', '', stranger.headers);
    expect(theirs.statusCode).toBe(200);
    expect(theirs.json()).toEqual([]);
    for (const [method, url, payload] of [
      ['GET', `/${id}`],
      ['PUT', `/${id}`, { name: 'robada' }],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/test`],
      ['POST', `/${id}/refresh`],
    ] as const) {
      const res = await inject(method, url, stranger.headers, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().error).toBe('Cuenta de WhatsApp no encontrada');
    }
    const anonymous = await bed.t.app.inject({ method: 'GET', url: '/api/whatsapp-accounts' });
    expect(anonymous.statusCode).toBe(401);
    const badId = await inject('GET', '/abc', owner.headers);
    expect(badId.statusCode).toBe(400);
  });

  it('keeps the token when the edit leaves it blank, and replaces it when given', async () => {
    const tokenOf = async () =>
      bed.t.ctx.secrets.open(
        (await rowsOf<{ t: string }>(bed.t.ctx.db, sql`select access_token_enc as t from whatsapp_accounts where id = ${id}`))[0]!.t,
      );
    const noName = await inject('PUT', `/${id}`, owner.headers, { access_token: '' });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().error).toMatch(/El nombre es requerido/);

    const blank = await inject('PUT', `/${id}`, owner.headers, { name: 'Renombrada', access_token: '', rate_per_second: 500 });
    expect(blank.statusCode).toBe(200);
    expect(blank.json()).toMatchObject({ name: 'Renombrada', rate_per_second: 500, notes: 'nota inicial' });
    expect(await tokenOf()).toBe(NUMBER.token);

    // A new token is verified with Meta before it is kept: one that Meta accepts for this WABA.
    bed.sim.addNumber({ ...NUMBER, phoneNumberId: '1009', token: 'otro-token' });
    const refused = await inject('PUT', `/${id}`, owner.headers, { name: 'Renombrada', access_token: 'token-desconocido' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toMatch(/^No se pudo verificar el número con Meta/);
    expect(await tokenOf()).toBe(NUMBER.token);
    const replaced = await inject('PUT', `/${id}`, owner.headers, { name: 'Renombrada', access_token: 'otro-token' });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.body).not.toContain('otro-token');
    expect(await tokenOf()).toBe('otro-token');
    await inject('PUT', `/${id}`, owner.headers, { name: 'Renombrada', access_token: NUMBER.token });

    const badPhone = await inject('PUT', `/${id}`, owner.headers, { name: 'x', phone_number: '12345' });
    expect(badPhone.statusCode).toBe(400);
    expect(badPhone.json().error).toMatch(/formato internacional/);
  });

  it('toggles is_active', async () => {
    const off = await inject('PUT', `/${id}`, owner.headers, { name: 'Renombrada', is_active: false });
    expect(off.json().is_active).toBe(false);
    const on = await inject('PUT', `/${id}`, owner.headers, { name: 'Renombrada', is_active: true });
    expect(on.json().is_active).toBe(true);
  });

  it('tests the number against Meta and stores what Meta says', async () => {
    const res = await inject('POST', `/${id}/test`, owner.headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(true);
    expect(body.account).toMatchObject({
      display_phone_number: '5491100000000',
      verified_name: 'Masivo Demo',
      quality_rating: 'GREEN',
      code_verification_status: 'VERIFIED',
      is_verified: true,
      throughput_level: 'STANDARD',
      messaging_limit: 'TIER_10K',
    });
    expect(body.account.last_checked_at).toBeTruthy();
  });

  it('refresh reads the number again (quality changes reach the card)', async () => {
    bed.sim.addNumber({ ...NUMBER, phoneNumberId: '1002', token: 'tok-1002', qualityRating: 'YELLOW', throughput: 1000, messagingLimit: 'TIER_UNLIMITED' });
    const other = await createAccount(bed.t, owner.headers, { phone_number_id: '1002', access_token: 'tok-1002' });
    const res = await inject('POST', `/${other.id}/refresh`, owner.headers);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ quality_rating: 'YELLOW', throughput_level: 'HIGH', messaging_limit: 'TIER_UNLIMITED', is_verified: true });
    await inject('DELETE', `/${other.id}`, owner.headers);
  });

  it('reports a bad token as { success: false, error } with Meta’s reason, in Spanish', async () => {
    bed.sim.addNumber({ ...NUMBER, phoneNumberId: '1003', token: 'tok-1003' });
    const bad = await createAccount(bed.t, owner.headers, { phone_number_id: '1003', access_token: 'tok-1003' });
    // The token was valid when saved and is revoked later (the stored copy is what Meta now refuses).
    await rowsOf(bed.t.ctx.db,
      sql`update whatsapp_accounts set access_token_enc = ${bed.t.ctx.secrets.seal('token-malo')} where id = ${bad.id}`,
    );
    const res = await inject('POST', `/${bad.id}/test`, owner.headers);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.success).toBe(false);
    expect(body.error).toMatch(/^Token de acceso inválido o expirado\./);
    expect(body.error).toMatch(/#190/);
    expect(body.error).toMatch(/Invalid OAuth access token/);
    expect(body.error).not.toContain('token-malo');
    // refresh is an error (not a sign-out: never 401)
    const refresh = await inject('POST', `/${bad.id}/refresh`, owner.headers);
    expect(refresh.statusCode).toBe(502);
    expect(refresh.json().error).toMatch(/Token de acceso inválido/);
    await inject('DELETE', `/${bad.id}`, owner.headers);
  });

  it('turns Meta’s management rate limit (80008) into a Spanish message', async () => {
    bed.sim.configure({ managementHourlyLimit: 0 });
    try {
      const res = await inject('POST', `/${id}/refresh`, owner.headers);
      expect(res.statusCode).toBe(429);
      expect(res.json().error).toMatch(/límite de llamadas/);
      expect(res.json().error).toMatch(/#80008/);
      const test = await inject('POST', `/${id}/test`, owner.headers);
      expect(test.json()).toMatchObject({ success: false });
      expect(test.json().error).toMatch(/80008/);
    } finally {
      bed.sim.configure({ managementHourlyLimit: 1_000_000 });
    }
  });

  it('counts messages today and this month from the sender’s daily counts', async () => {
    const [{ first }] = await rowsOf<{ first: boolean }>(bed.t.ctx.db, sql`select extract(day from current_date) = 1 as first`);
    await rowsOf(bed.t.ctx.db, sql`
      insert into whatsapp_message_counts (whatsapp_account_id, day, sent) values
        (${id}, current_date, 5),
        (${id}, date_trunc('month', current_date)::date, 7),
        (${id}, (date_trunc('month', current_date) - interval '3 days')::date, 100)
      on conflict (whatsapp_account_id, day) do update set sent = whatsapp_message_counts.sent + excluded.sent`);
    const stats = await inject('GET', '/stats', owner.headers);
    expect(stats.statusCode).toBe(200);
    expect(stats.json()).toEqual({
      total_accounts: 1,
      active_accounts: 1,
      verified_accounts: 1,
      daily_messages_sent: first ? 12 : 5,
      monthly_messages_sent: 12,
    });
    const listed = (await inject('GET', '', owner.headers)).json().find((a: { id: number }) => a.id === id);
    expect(listed.daily_message_count).toBe(first ? 12 : 5);
    const strangerStats = await inject('GET', '/stats', stranger.headers);
    expect(strangerStats.json()).toEqual({
      total_accounts: 0,
      active_accounts: 0,
      verified_accounts: 0,
      daily_messages_sent: 0,
      monthly_messages_sent: 0,
    });
  });

  it('deletes the account', async () => {
    const res = await inject('DELETE', `/${id}`, owner.headers);
    expect(res.statusCode).toBe(200);
    expect((await inject('GET', `/${id}`, owner.headers)).statusCode).toBe(404);
    expect((await inject('DELETE', `/${id}`, owner.headers)).statusCode).toBe(404);
  });
});
