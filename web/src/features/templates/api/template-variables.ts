import type { SaveMappingsInput, VariableMapping } from '@masivo/contract/variables';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { templateVariablesKey, templateVariablesQueryOptions } from '@/api/templates';
import { api } from '@/lib/api-client';

/** The template's variables, what can fill them, and the saved mappings (shared with the campaign form). */
export const useTemplateVariables = (templateId: number | null) =>
  useQuery({ ...templateVariablesQueryOptions(templateId ?? 0), enabled: !!templateId });

export const saveMappings = ({ templateId, input }: { templateId: number; input: SaveMappingsInput }) =>
  api.post<{ success: boolean; message: string; mappings: VariableMapping[] }>(`/variables/template/${templateId}/mappings`, input);

export function useSaveMappings() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: saveMappings,
    onSuccess: (_r, { templateId }) => qc.invalidateQueries({ queryKey: templateVariablesKey(templateId) }),
  });
}
