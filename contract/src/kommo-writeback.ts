import { z } from 'zod';
import { isWellFormedText } from './common';

/**
 * Write-back of campaign results to Kommo, opt-in per Kommo account: a note on each
 * person's contact, a tag for opt-outs and one for replies, and optionally a reply moves the
 * contact's open lead to a chosen pipeline stage.
 */

const MAX_KOMMO_ID = 9_007_199_254_740_991;

const tagName = (what: string) =>
  z
    .string({ error: `La etiqueta de ${what} debe ser un texto` })
    .trim()
    .max(100, `La etiqueta de ${what} admite hasta 100 caracteres`)
    .refine(isWellFormedText, `La etiqueta de ${what} contiene caracteres inválidos`)
    .refine((v) => !/[,;]/.test(v), `La etiqueta de ${what} no puede contener comas ni punto y coma`)
    .nullable()
    .transform((v) => (v ? v : null));

const kommoId = (what: string) =>
  z.coerce
    .number({ error: `${what} inválido` })
    .int(`${what} inválido`)
    .positive(`${what} inválido`)
    .max(MAX_KOMMO_ID, `${what} inválido`)
    .nullable();

export const writebackSettingsSchema = z
  .strictObject({
    enabled: z.boolean({ error: 'Indica si se activa la escritura en Kommo' }),
    notes: z.boolean({ error: 'Indica si se escriben notas' }),
    opt_out_tag: tagName('bajas'),
    reply_tag: tagName('respuestas'),
    pipeline_id: kommoId('Embudo'),
    status_id: kommoId('Etapa'),
  })
  .refine((v) => (v.pipeline_id === null) === (v.status_id === null), {
    message: 'Elige el embudo y la etapa, o ninguno de los dos',
    path: ['status_id'],
  });
export type WritebackSettingsInput = z.input<typeof writebackSettingsSchema>;
export type WritebackSettings = z.output<typeof writebackSettingsSchema>;

export const writebackSettingsViewSchema = z.object({
  enabled: z.boolean(),
  notes: z.boolean(),
  opt_out_tag: z.string().nullable(),
  reply_tag: z.string().nullable(),
  pipeline_id: z.number().nullable(),
  status_id: z.number().nullable(),
  /** Campaigns completed since then are written back. */
  enabled_at: z.string().nullable(),
});
export type WritebackSettingsView = z.infer<typeof writebackSettingsViewSchema>;

export const kommoPipelineSchema = z.object({
  id: z.number(),
  name: z.string(),
  is_main: z.boolean(),
  statuses: z.array(z.object({ id: z.number(), name: z.string() })),
});
export type KommoPipelineInfo = z.infer<typeof kommoPipelineSchema>;

/**
 * off: the campaign is not written back; waiting: it will be once it completes; paused: write-back
 * was switched off on the account with contacts still to write (they are written when it is on again).
 */
export const WRITEBACK_STATES = ['off', 'waiting', 'running', 'retrying', 'paused', 'done'] as const;

export const campaignWritebackSchema = z.object({
  state: z.enum(WRITEBACK_STATES),
  /** Contacts of the campaign written back (their result note, tags, lead). */
  total: z.number(),
  done: z.number(),
  failed: z.number(),
  /** Late events (replies, opt-outs after the campaign) written and waiting. */
  late_done: z.number(),
  late_pending: z.number(),
  /** Kommo refused the account as a whole (401, 402, 403, 429, 5xx): why, and when it is tried again. */
  last_error: z.string().nullable(),
  retry_at: z.string().nullable(),
  /** Why contacts failed, most frequent first. */
  failures: z.array(z.object({ reason: z.string(), count: z.number() })),
});
export type CampaignWriteback = z.infer<typeof campaignWritebackSchema>;

/** "1.200" the way the console writes numbers (es-AR grouping). */
const groups = (n: number) => String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');

/** "Kommo: 1.200 / 5.000 contactos actualizados". */
export function writebackProgressLabel(done: number, total: number): string {
  return `Kommo: ${groups(done)} / ${groups(total)} contactos actualizados`;
}

/** The note written on a contact: "Campaña {nombre}: entregado / leído / falló ({motivo}) / respondió". */
export function writebackNoteText(campaignName: string, outcome: 'sent' | 'delivered' | 'read' | 'failed' | 'replied', reason?: string | null): string {
  const what = {
    sent: 'enviado',
    delivered: 'entregado',
    read: 'leído',
    failed: `falló (${(reason ?? '').trim() || 'motivo desconocido'})`,
    replied: 'respondió',
  }[outcome];
  return `Campaña ${campaignName}: ${what}`;
}
