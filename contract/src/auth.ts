import { z } from 'zod';

/**
 * Same pattern on both sides so the form and the API agree on what an email is. Every part is
 * unambiguous (the local part stops at the only '@', each domain label stops at a dot), so a
 * failing match is linear in the input instead of backtracking.
 */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
export const EMAIL_MAX = 254;
export const PASSWORD_MIN = 6;
export const PASSWORD_MAX = 200;

const email = z
  .string({ error: 'Email es requerido' })
  .trim()
  .min(1, 'Email es requerido')
  // zod runs every check even after one fails unless told to abort: the length must stop a
  // huge input before the pattern sees it.
  .max(EMAIL_MAX, { error: 'Email inválido', abort: true })
  .regex(EMAIL_PATTERN, 'Email inválido');

const password = z
  .string({ error: 'Contraseña es requerida' })
  .min(1, 'Contraseña es requerida')
  .min(PASSWORD_MIN, `La contraseña debe tener al menos ${PASSWORD_MIN} caracteres`)
  .max(PASSWORD_MAX, { error: 'La contraseña es demasiado larga', abort: true });

const name = z.string().trim().max(100, 'El nombre es demasiado largo');

export const loginSchema = z.strictObject({ email, password });
export type LoginInput = z.infer<typeof loginSchema>;

export const registerSchema = z.strictObject({
  first_name: name.optional().default(''),
  last_name: name.optional().default(''),
  email,
  password,
  /**
   * Signing up through an invitation: the account joins that organisation (and founds none);
   * the e-mail must be the invited one. Same shape as invitations.ts's token schema, repeated
   * here because that module imports this one.
   */
  invitation_token: z
    .string({ error: 'Invitación inválida' })
    .trim()
    .min(20, 'Invitación inválida')
    .max(100, { error: 'Invitación inválida', abort: true })
    .regex(/^[A-Za-z0-9_-]+$/, 'Invitación inválida')
    .optional(),
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

/** Changing the password signs every other session out; the answer carries a fresh session. */
export const changePasswordSchema = z.strictObject({
  current_password: z
    .string({ error: 'La contraseña actual es requerida' })
    .min(1, 'La contraseña actual es requerida')
    .max(PASSWORD_MAX, { error: 'La contraseña actual es incorrecta', abort: true }),
  new_password: z
    .string({ error: 'La nueva contraseña es requerida' })
    .min(1, 'La nueva contraseña es requerida')
    .min(PASSWORD_MIN, `La nueva contraseña debe tener al menos ${PASSWORD_MIN} caracteres`)
    .max(PASSWORD_MAX, { error: 'La nueva contraseña es demasiado larga', abort: true }),
});
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;
