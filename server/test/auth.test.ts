import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const register = (payload: unknown) => t.app.inject({ method: 'POST', url: '/api/auth/register', payload: payload as object });
const login = (payload: unknown, ip = '10.0.0.1') =>
  t.app.inject({ method: 'POST', url: '/api/auth/login', payload: payload as object, remoteAddress: ip });

describe('auth', () => {
  it('registers, returns token and user, and never the password', async () => {
    const res = await register({ first_name: 'María', last_name: 'López', email: 'Maria@Example.com', password: 'secreto1' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.token).toMatch(/^ey/);
    expect(body.user).toMatchObject({ first_name: 'María', last_name: 'López', email: 'Maria@Example.com' });
    expect(res.body).not.toContain('secreto1');
    expect(res.body).not.toContain('password');
  });

  it('treats emails case-insensitively', async () => {
    const dup = await register({ first_name: '', last_name: '', email: 'maria@example.COM', password: 'secreto1' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error).toBe('Ya existe una cuenta con ese email');
    const ok = await login({ email: 'MARIA@example.com', password: 'secreto1' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().user.email).toBe('Maria@Example.com');
  });

  it('gives one generic message for wrong email or wrong password', async () => {
    const wrongPassword = await login({ email: 'maria@example.com', password: 'otraclave' }, '10.0.0.2');
    const unknownEmail = await login({ email: 'nadie@example.com', password: 'otraclave' }, '10.0.0.2');
    expect(wrongPassword.statusCode).toBe(401);
    expect(unknownEmail.statusCode).toBe(401);
    expect(wrongPassword.json().error).toBe('Email o contraseña incorrectos');
    expect(unknownEmail.json().error).toBe(wrongPassword.json().error);
  });

  it('throttles repeated failures for one email from one address, without locking its owner out', async () => {
    await register({ email: 'victima@example.com', password: 'secreto1' });
    for (let i = 0; i < 5; i++) await login({ email: 'victima@example.com', password: 'malaclave' }, '10.1.0.1');
    const blocked = await login({ email: 'victima@example.com', password: 'secreto1' }, '10.1.0.1');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toMatch(/Demasiados intentos/);
    const owner = await login({ email: 'victima@example.com', password: 'secreto1' }, '10.1.1.1');
    expect(owner.statusCode).toBe(200);
  });

  it('returns the current user for a valid token and 401 otherwise', async () => {
    const { headers } = await t.signUp('yo@example.com');
    const me = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers });
    expect(me.statusCode).toBe(200);
    expect(me.json().email).toBe('yo@example.com');
    for (const authorization of [undefined, 'Bearer nope', 'Basic abc']) {
      const res = await t.app.inject({ method: 'GET', url: '/api/auth/me', headers: authorization ? { authorization } : {} });
      expect(res.statusCode).toBe(401);
      expect(res.json().error).toBeTypeOf('string');
    }
  });

  it('rejects malformed bodies, wrong types and unknown fields with Spanish 400s', async () => {
    const cases = [
      { payload: '{"email": ', type: 'application/json', expected: 'El cuerpo de la petición no es JSON válido' },
      { payload: JSON.stringify({ email: 42, password: 'secreto1' }), type: 'application/json', expected: /email/ },
      { payload: JSON.stringify({ email: 'a@b.co', password: 'secreto1', admin: true }), type: 'application/json', expected: /admin|desconocid/i },
      { payload: JSON.stringify({ email: 'malo', password: 'secreto1' }), type: 'application/json', expected: 'email: Email inválido' },
      { payload: JSON.stringify({ email: 'a@b.co', password: '123' }), type: 'application/json', expected: 'password: La contraseña debe tener al menos 6 caracteres' },
    ];
    for (const c of cases) {
      const res = await t.app.inject({ method: 'POST', url: '/api/auth/login', payload: c.payload, headers: { 'content-type': c.type } });
      expect(res.statusCode, c.payload).toBe(400);
      expect(res.json().error).toMatch(c.expected);
    }
  });

  it('answers 401 on private routes and 404 JSON on unknown ones', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/auth/me' });
    expect(res.statusCode).toBe(401);
    const missing = await t.app.inject({ method: 'GET', url: '/api/nada' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Ruta no encontrada' });
  });

  it('serves the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    expect(res.json().paths['/api/auth/login']).toBeDefined();
  });
});
