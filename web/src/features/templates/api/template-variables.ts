import type { SaveMappingsInput, TemplateVariablesResponse, VariableMapping } from '@masivo/contract/variables';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';

const variablesKey = (templateId: number) => ['variables', 'template', templateId] as const;

/** The template's variables, what can fill them, and the saved mappings. */
export const getTemplateVariables = (templateId: number) => api.get<TemplateVariablesResponse>(`/variables/template/${templateId}`);

export const getTemplateVariablesQueryOptions = (templateId: number) =>
  queryOptions({ queryKey: variablesKey(templateId), queryFn: () => getTemplateVariables(templateId), staleTime: 0 });

export const useTemplateVariables = (templateId: number | null) =>
  useQuery({ ...getTemplateVariablesQueryOptions(templateId ?? 0), enabled: !!templateId });

export const saveMappings = ({ templateId, input }: { templateId: number; input: SaveMappingsInput }) =>
  api.post<{ success: boolean; message: string; mappings: VariableMapping[] }>(`/variables/template/${templateId}/mappings`, input);

export function useSaveMappings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: saveMappings,
    onSuccess: (_r, { templateId }) => qc.invalidateQueries({ queryKey: variablesKey(templateId) }),
  });
}
