import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { templatesKeys } from '@/api/templates';

export const deleteTemplate = (id: number) => api.delete<{ success: true }>(`/templates/${id}`);

export function useDeleteTemplate() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: deleteTemplate, onSuccess: () => qc.invalidateQueries({ queryKey: templatesKeys.all }) });
}
