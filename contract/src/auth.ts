import { z } from 'zod';

/** Same pattern on both sides so the form and the API agree on what an email is. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const PASSWORD_MIN = 6;

const email = z
  .string({ error: 'Email es requerido' })
  .trim()
  .min(1, 'Email es requerido')
  .max(254, 'Email inválido')
  .regex(EMAIL_PATTERN, 'Email inválido');

const password = z
  .string({ error: 'Contraseña es requerida' })
  .min(1, 'Contraseña es requerida')
  .min(PASSWORD_MIN, `La contraseña debe tener al menos ${PASSWORD_MIN} caracteres`)
  .max(200, 'La contraseña es demasiado larga');

const name = z.string().trim().max(100, 'El nombre es demasiado largo');

export const loginSchema = z.strictObject({ email, password });
export type LoginInput = z.infer<typeof loginSchema>;

export const registerSchema = z.strictObject({
  first_name: name.optional().default(''),
  last_name: name.optional().default(''),
  email,
  password,
});
export type RegisterInput = z.input<typeof registerSchema>;

/** The register form adds a confirmation that never leaves the browser. */
export const registerFormSchema = z
  .object({
    first_name: name,
    last_name: name,
    email,
    password,
    confirmPassword: z.string().min(1, 'Confirma tu contraseña'),
  })
  .refine((v) => v.password === v.confirmPassword, {
    message: 'Las contraseñas no coinciden',
    path: ['confirmPassword'],
  });
export type RegisterFormInput = z.infer<typeof registerFormSchema>;

export const userSchema = z.object({
  id: z.number(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  created_at: z.string(),
});
export type User = z.infer<typeof userSchema>;

export const authResponseSchema = z.object({ token: z.string(), user: userSchema });
export type AuthResponse = z.infer<typeof authResponseSchema>;
