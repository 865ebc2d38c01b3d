import { z } from 'zod';
import { userSchema } from './auth';

/**
 * An organisation is the tenant: every Kommo account, contact, number, template and campaign
 * belongs to one. Its members act in it with one of five fixed roles, optionally limited to some
 * numbers and Kommo accounts (their scope).
 */
export const ROLES = ['owner', 'admin', 'campaign_manager', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABEL: Record<Role, string> = {
  owner: 'Propietario',
  admin: 'Administrador',
  campaign_manager: 'Gestor de campañas',
  editor: 'Editor',
  viewer: 'Lector',
};

/**
 * What a route needs. Each route of the API declares exactly one; the server refuses to start
 * when one declares none (server/src/plugins/authorize.ts).
 */
export const PERMISSIONS = [
  /** See campaigns, their results and the dashboard. */
  'campaigns.view',
  /** Create and edit drafts, run the pre-flight. */
  'campaigns.edit',
  /** Start, schedule, pause, resume, delete, retry (an Editor's start asks for approval). */
  'campaigns.start',
  'campaigns.send',
  /** Approve or reject someone else's campaign. */
  'campaigns.approve',
  /** See contacts; without `contacts.phones` their phones come masked. */
  'contacts.view',
  'contacts.phones',
  /** Export contacts or results with phones. */
  'contacts.export',
  'blacklist.add',
  'blacklist.remove',
  /** Sync, create, delete and map templates. */
  'templates.manage',
  /** Connect and edit Kommo accounts and numbers, the rate card and the write-back. */
  'connections.manage',
  /** Members, invitations, settings and the activity log. */
  'organization.manage',
  /** API keys of the organisation for other systems (never usable by a key itself). */
  'api_keys.manage',
  /** Outbound webhook endpoints, their deliveries and secrets. */
  'webhooks.manage',
  /** Delete the organisation, transfer ownership. */
  'organization.own',
  /** Any member: their own profile, session and organisations. */
  'member',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ALL: readonly Permission[] = PERMISSIONS;
const VIEW: Permission[] = ['member', 'campaigns.view', 'contacts.view'];
const EDIT: Permission[] = [...VIEW, 'contacts.phones', 'campaigns.edit', 'campaigns.start', 'blacklist.add', 'templates.manage'];

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: ALL,
  admin: ALL.filter((p) => p !== 'organization.own'),
  campaign_manager: [...EDIT, 'campaigns.send', 'campaigns.approve', 'contacts.export', 'blacklist.remove'],
  editor: EDIT,
  viewer: VIEW,
};

export const can = (role: Role | null | undefined, permission: Permission) =>
  !!role && ROLE_PERMISSIONS[role].includes(permission);

/** Roles that are never limited to some numbers or accounts. */
export const UNSCOPED_ROLES: readonly Role[] = ['owner', 'admin'];

const ids = z.array(z.number().int().positive()).max(500, 'Demasiados elementos en el alcance');
export const scopeSchema = z.strictObject({
  whatsapp_account_ids: ids.default([]),
  kommo_account_ids: ids.default([]),
});
export type Scope = z.infer<typeof scopeSchema>;
export const EMPTY_SCOPE: Scope = { whatsapp_account_ids: [], kommo_account_ids: [] };

export const roleSchema = z.enum(ROLES, { error: 'Rol inválido' });

export const organizationSchema = z.object({ id: z.number(), name: z.string() });
export type Organization = z.infer<typeof organizationSchema>;

export const membershipSchema = organizationSchema.extend({ role: roleSchema });

export const meSchema = z.object({
  user: userSchema,
  organization: organizationSchema.nullable(),
  role: roleSchema.nullable(),
  permissions: z.array(z.enum(PERMISSIONS)),
  scope: scopeSchema,
  organizations: z.array(membershipSchema),
});
export type Me = z.infer<typeof meSchema>;

export const switchResponseSchema = z.object({ token: z.string(), me: meSchema });

export const memberSchema = z.object({
  user_id: z.number(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role: roleSchema,
  scope: scopeSchema,
  joined_at: z.string(),
});
export type Member = z.infer<typeof memberSchema>;

export const updateMemberSchema = z.strictObject({
  role: roleSchema,
  scope: scopeSchema.default(EMPTY_SCOPE),
});
export type UpdateMemberInput = z.input<typeof updateMemberSchema>;

export const APPROVAL_MODES = ['off', 'recipients', 'cost', 'always'] as const;
export const APPROVAL_MODE_LABEL: Record<(typeof APPROVAL_MODES)[number], string> = {
  off: 'Desactivada',
  recipients: 'Más de N destinatarios',
  cost: 'Costo estimado mayor a US$ X',
  always: 'Siempre',
};

export const organizationSettingsSchema = z.strictObject({
  approval: z.strictObject({
    mode: z.enum(APPROVAL_MODES, { error: 'Modo de aprobación inválido' }),
    min_recipients: z
      .number({ error: 'Cantidad de destinatarios inválida' })
      .int('Cantidad de destinatarios inválida')
      .min(1, 'La cantidad de destinatarios debe ser al menos 1')
      .max(100_000_000, 'Cantidad de destinatarios demasiado grande')
      .nullable()
      .default(null),
    min_cost_usd: z
      .number({ error: 'Costo inválido' })
      .min(0.01, 'El costo debe ser mayor a 0')
      .max(10_000_000, 'Costo demasiado grande')
      .nullable()
      .default(null),
  }),
  activity_retention_days: z
    .number({ error: 'Retención inválida' })
    .int('Retención inválida')
    .min(30, 'La retención debe ser de al menos 30 días')
    .max(3650, 'La retención no puede superar 10 años')
    .default(365),
}).superRefine((v, ctx) => {
  if (v.approval.mode === 'recipients' && v.approval.min_recipients == null)
    ctx.addIssue({ code: 'custom', path: ['approval', 'min_recipients'], message: 'Indica la cantidad de destinatarios' });
  if (v.approval.mode === 'cost' && v.approval.min_cost_usd == null)
    ctx.addIssue({ code: 'custom', path: ['approval', 'min_cost_usd'], message: 'Indica el costo en US$' });
});
export type OrganizationSettings = z.output<typeof organizationSettingsSchema>;
export type OrganizationSettingsInput = z.input<typeof organizationSettingsSchema>;

/**
 * `+54 9 11 1234-5678` → `+54 9 11 •••• 5678`: what comes before the last eight digits stays
 * (country and area), the four before the last four are hidden, the last four stay. Short
 * numbers are hidden whole.
 */
export function maskPhone(phone: string): string {
  const text = phone.trim();
  const positions: number[] = [];
  for (let i = 0; i < text.length; i++) if (text[i]! >= '0' && text[i]! <= '9') positions.push(i);
  if (positions.length <= 8) return '••••';
  const head = text.slice(0, positions[positions.length - 8]).replace(/[\s\-().]+$/, '');
  return `${head} •••• ${positions.slice(-4).map((i) => text[i]).join('')}`;
}
