import { z } from 'zod';
import { createCampaignSchema } from './campaigns';
import { automationTriggerSchema } from './automation-trigger';

export * from './automation-trigger';

/**
 * `POST /api/campaigns` with `kind: "automatic"`: the usual number, template and sending hours,
 * the Kommo account whose leads trigger it, and the trigger. No contact filter and no schedule:
 * it is switched on with `/start` and paused with `/pause`.
 */
export const createAutomaticCampaignSchema = createCampaignSchema
  .omit({ filters: true, scheduled_at: true, variants: true, ab_test: true })
  .extend({
    kind: z.literal('automatic'),
    trigger: automationTriggerSchema,
  });
export type CreateAutomaticCampaignInput = z.input<typeof createAutomaticCampaignSchema>;


/**
 * The body of `POST /api/campaigns`: an ordinary campaign (no `kind`, or `kind: "campaign"`) or an
 * automatic one (`kind: "automatic"`). Ordinary payloads are exactly what they were.
 */
export const createAnyCampaignSchema = z.discriminatedUnion('kind', [createCampaignSchema, createAutomaticCampaignSchema], {
  error: 'Tipo de campaña inválido: usa "automatic" para una campaña automática u omítelo',
});
export type CreateAnyCampaignInput = z.input<typeof createAnyCampaignSchema>;
