import type { Template } from '@masivo/contract/templates';
import type { TemplateVariablesResponse } from '@masivo/contract/variables';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../lib/api-client';

export const templatesKeys = {
  all: ['templates'] as const,
  account: (whatsappAccountId: number) => ['templates', 'account', whatsappAccountId] as const,
};

export const getAccountTemplates = (whatsappAccountId: number) => api.get<Template[]>(`/templates/account/${whatsappAccountId}`);

export const accountTemplatesQueryOptions = (whatsappAccountId: number) =>
  queryOptions({ queryKey: templatesKeys.account(whatsappAccountId), queryFn: () => getAccountTemplates(whatsappAccountId) });

/** Meta's verdict on a pending template arrives by webhook; the list polls until none is pending. */
const PENDING_POLL_MS = 5000;

/** The templates of one WhatsApp account (the spec looks a campaign's template up among them). */
export const useAccountTemplates = (whatsappAccountId: number | null | undefined, { pollWhilePending = false } = {}) =>
  useQuery({
    ...accountTemplatesQueryOptions(whatsappAccountId ?? 0),
    enabled: !!whatsappAccountId,
    refetchInterval: pollWhilePending ? (q) => (q.state.data?.some((t) => t.status === 'pending') ? PENDING_POLL_MS : false) : false,
  });

/** A template's variable slots, what can fill them and the saved mappings; the mapping dialog saves under this key. */
export const templateVariablesKey = (templateId: number) => ['variables', 'template', templateId] as const;

export const getTemplateVariables = (templateId: number) => api.get<TemplateVariablesResponse>(`/variables/template/${templateId}`);

export const templateVariablesQueryOptions = (templateId: number) =>
  queryOptions({ queryKey: templateVariablesKey(templateId), queryFn: () => getTemplateVariables(templateId), staleTime: 0 });
