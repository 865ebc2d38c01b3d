import type { CreateTemplateInput, CreateTemplateResponse } from '@masivo/contract/templates';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '../../../lib/api-client';
import { templatesKey } from './get-account-templates';

export const createTemplate = (input: CreateTemplateInput) => api.post<CreateTemplateResponse>('/templates/create', input);

/** Resubmits a template Meta did not accept. */
export const submitTemplate = (id: number) => api.post<CreateTemplateResponse>(`/templates/${id}/submit`);

export function useCreateTemplate() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: createTemplate, onSettled: () => qc.invalidateQueries({ queryKey: templatesKey }) });
}

export function useSubmitTemplate() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: submitTemplate, onSettled: () => qc.invalidateQueries({ queryKey: templatesKey }) });
}
