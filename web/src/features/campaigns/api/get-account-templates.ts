import type { Template } from '@masivo/contract/templates';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

export const getAccountTemplates = (whatsappAccountId: number) =>
  api.get<Template[]>(`/templates/account/${whatsappAccountId}`);

export const getAccountTemplatesQueryOptions = (whatsappAccountId: number) =>
  queryOptions({
    queryKey: ['templates', 'account', whatsappAccountId],
    queryFn: () => getAccountTemplates(whatsappAccountId),
  });

/** Spec: the template is looked up among the templates of the chosen WhatsApp account. */
export const useAccountTemplates = (whatsappAccountId: number | undefined) =>
  useQuery({ ...getAccountTemplatesQueryOptions(whatsappAccountId ?? 0), enabled: !!whatsappAccountId });
