import { z } from 'zod';
import { EMAIL_MAX, EMAIL_PATTERN } from './auth';
import { EMPTY_SCOPE, meSchema, roleSchema, scopeSchema } from './organizations';

/** How long a link stays valid. */
export const INVITATION_TTL_HOURS = 72;
/** Pending invitations an organisation may hold at once. */
export const MAX_PENDING_INVITATIONS = 50;

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;
export type InvitationStatus = (typeof INVITATION_STATUSES)[number];
export const INVITATION_STATUS_LABEL: Record<InvitationStatus, string> = {
  pending: 'Pendiente',
  accepted: 'Aceptada',
  revoked: 'Revocada',
  expired: 'Vencida',
};

export const MAIL_STATUSES = ['not_sent', 'sending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];
export const MAIL_STATUS_LABEL: Record<MailStatus, string> = {
  not_sent: 'Sin envío (copia el enlace)',
  sending: 'Enviando…',
  sent: 'Correo enviado',
  failed: 'No se pudo enviar',
};

/** A link token: 32 random bytes in base64url (43 characters). */
export const invitationTokenSchema = z
  .string({ error: 'Invitación inválida' })
  .trim()
  .min(20, 'Invitación inválida')
  .max(100, { error: 'Invitación inválida', abort: true })
  .regex(/^[A-Za-z0-9_-]+$/, 'Invitación inválida');

export const createInvitationSchema = z.strictObject({
  email: z
    .string({ error: 'Email es requerido' })
    .trim()
    .min(1, 'Email es requerido')
    .max(EMAIL_MAX, { error: 'Email inválido', abort: true })
    .regex(EMAIL_PATTERN, 'Email inválido'),
  role: roleSchema,
  scope: scopeSchema.default(EMPTY_SCOPE),
});
export type CreateInvitationInput = z.input<typeof createInvitationSchema>;

export const invitationSchema = z.object({
  id: z.number(),
  email: z.string(),
  role: roleSchema,
  scope: scopeSchema,
  status: z.enum(INVITATION_STATUSES),
  mail_status: z.enum(MAIL_STATUSES),
  mail_error: z.string().nullable(),
  invited_by: z.string().nullable(),
  expires_at: z.string(),
  created_at: z.string(),
  accepted_at: z.string().nullable(),
});
export type Invitation = z.infer<typeof invitationSchema>;

/**
 * The answer to creating or resending: the invitation, and the link only when no mail server is
 * configured (someone must pass it on by hand); with SMTP the link travels only by mail.
 */
export const invitationCreatedSchema = z.object({ invitation: invitationSchema, link: z.string().nullable() });
export type InvitationCreated = z.infer<typeof invitationCreatedSchema>;

/** What the accept page shows before anyone signs in. */
export const invitationPreviewSchema = z.object({
  organization: z.string(),
  email: z.string(),
  role: roleSchema,
  invited_by: z.string().nullable(),
  expires_at: z.string(),
});
export type InvitationPreview = z.infer<typeof invitationPreviewSchema>;

export const acceptInvitationSchema = z.strictObject({ token: invitationTokenSchema });
export type AcceptInvitationInput = z.infer<typeof acceptInvitationSchema>;

/** A fresh session acting in the organisation just joined. */
export const acceptInvitationResponseSchema = z.object({ token: z.string(), me: meSchema });
export type AcceptInvitationResponse = z.infer<typeof acceptInvitationResponseSchema>;

