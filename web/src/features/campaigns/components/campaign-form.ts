import { createCampaignSchema, type CreateCampaignInput } from '@masivo/contract/campaigns';
import { isCustomFieldFilterActive, type ContactFilter } from '@masivo/contract/contact-filter';
import { z } from 'zod';
import { isFutureLocalInput, localInputToIso } from './schedule';

/** The form reuses the contract's creation rules; the schedule is kept as the picker's local value. */
export const campaignFormSchema = createCampaignSchema
  .pick({ name: true, description: true, kommo_account_id: true, whatsapp_account_id: true, template_id: true })
  .extend({
    scheduled_local: z
      .string()
      .refine((v) => v === '' || isFutureLocalInput(v), 'La fecha programada debe ser posterior a la fecha actual'),
  });
export type CampaignFormInput = z.input<typeof campaignFormSchema>;
export type CampaignFormValues = z.output<typeof campaignFormSchema>;

export const EMPTY_FILTER: ContactFilter = { searchQuery: '', tags: [], tagOperator: 'OR', customFieldFilters: {} };

/** Only filters that can narrow the audience travel (spec §5: the others do not count). */
export function activeFilter(f: ContactFilter): ContactFilter {
  return {
    searchQuery: f.searchQuery.trim(),
    tags: f.tags,
    tagOperator: f.tagOperator,
    customFieldFilters: Object.fromEntries(
      Object.entries(f.customFieldFilters).filter(([, cf]) => isCustomFieldFilterActive(cf)),
    ),
  };
}

/** Spec §3 creation payload: message_type fixed, scheduled_at omitted for a draft. */
export function toCreatePayload(values: CampaignFormValues, filter: ContactFilter): CreateCampaignInput {
  const scheduledAt = localInputToIso(values.scheduled_local);
  return {
    name: values.name,
    description: values.description,
    kommo_account_id: values.kommo_account_id,
    whatsapp_account_id: values.whatsapp_account_id,
    template_id: values.template_id,
    message_type: 'template',
    ...(scheduledAt ? { scheduled_at: scheduledAt } : {}),
    filters: activeFilter(filter),
  };
}
