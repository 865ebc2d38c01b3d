import { describe, expect, it } from 'vitest';
import { loginSchema, registerFormSchema } from '../src/auth';

const firstMessage = (r: { success: boolean; error?: { issues: { message: string }[] } }) =>
  r.error?.issues[0]?.message;

describe('auth schemas', () => {
  it('asks for the email, then for a valid one', () => {
    expect(firstMessage(loginSchema.safeParse({ email: '', password: 'secreto' }))).toBe('Email es requerido');
    expect(firstMessage(loginSchema.safeParse({ email: 'nope', password: 'secreto' }))).toBe('Email inválido');
  });

  it('enforces the password minimum', () => {
    expect(firstMessage(loginSchema.safeParse({ email: 'a@b.co', password: '' }))).toBe('Contraseña es requerida');
    expect(firstMessage(loginSchema.safeParse({ email: 'a@b.co', password: '123' }))).toBe(
      'La contraseña debe tener al menos 6 caracteres',
    );
  });

  it('requires a matching confirmation on register', () => {
    const base = { first_name: '', last_name: '', email: 'a@b.co', password: 'secreto' };
    expect(firstMessage(registerFormSchema.safeParse({ ...base, confirmPassword: '' }))).toBe('Confirma tu contraseña');
    expect(firstMessage(registerFormSchema.safeParse({ ...base, confirmPassword: 'otro123' }))).toBe(
      'Las contraseñas no coinciden',
    );
    expect(registerFormSchema.safeParse({ ...base, confirmPassword: 'secreto' }).success).toBe(true);
  });
});
