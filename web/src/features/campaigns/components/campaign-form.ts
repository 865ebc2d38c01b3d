import { createCampaignSchema, type CreateCampaignInput } from '@masivo/contract/campaigns';
import type { ContactFilter } from '@masivo/contract/contact-filter';
import { z } from 'zod';
import { filterToBody } from '@masivo/contract/contact-filter';
import { isFutureLocalInput, localInputToIso } from './schedule';

/** The form reuses the contract's creation rules; the schedule is kept as the picker's local value. */
export const campaignFormSchema = createCampaignSchema
  .pick({
    name: true,
    description: true,
    kommo_account_id: true,
    whatsapp_account_id: true,
    template_id: true,
    deferred_max_attempts: true,
    deferred_window_hours: true,
  })
  .extend({
    scheduled_local: z
      .string()
      .refine((v) => v === '' || isFutureLocalInput(v), 'La fecha de programación debe ser futura'),
  });
export type CampaignFormInput = z.input<typeof campaignFormSchema>;
export type CampaignFormValues = z.output<typeof campaignFormSchema>;

/** Spec §3 creation payload: message_type fixed, scheduled_at omitted for a draft. */
export function toCreatePayload(values: CampaignFormValues, filter: ContactFilter): CreateCampaignInput {
  const scheduledAt = localInputToIso(values.scheduled_local);
  return {
    name: values.name,
    description: values.description,
    kommo_account_id: values.kommo_account_id,
    whatsapp_account_id: values.whatsapp_account_id,
    template_id: values.template_id,
    deferred_max_attempts: values.deferred_max_attempts,
    deferred_window_hours: values.deferred_window_hours,
    message_type: 'template',
    ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
    // Only filters that narrow the audience travel (spec §5: the others do not count).
    filters: filterToBody(filter),
  };
}
