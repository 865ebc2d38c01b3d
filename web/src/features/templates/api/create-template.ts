import type { CreateTemplateInput, CreateTemplateResponse, MediaSampleResponse } from '@masivo/contract/templates';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { templatesKeys } from '@/api/templates';

export const createTemplate = (input: CreateTemplateInput) => api.post<CreateTemplateResponse>('/templates/create', input);

/** Resubmits a template Meta did not accept. */
export const submitTemplate = (id: number) => api.post<CreateTemplateResponse>(`/templates/${id}/submit`);

export function useCreateTemplate() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: createTemplate, onSettled: () => qc.invalidateQueries({ queryKey: templatesKeys.all }) });
}

export function useSubmitTemplate() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: submitTemplate, onSettled: () => qc.invalidateQueries({ queryKey: templatesKeys.all }) });
}

/** Uploads a media header's sample (through Meta's Resumable Upload API); returns its `header_handle`. */
export const uploadMediaSample = (whatsappAccountId: number, format: 'IMAGE' | 'VIDEO' | 'DOCUMENT', file: Blob) =>
  api.post<MediaSampleResponse>('/templates/media-sample', file, { whatsapp_account_id: whatsappAccountId, format });

export const useUploadMediaSample = () => useMutation({ mutationFn: (v: { whatsappAccountId: number; format: 'IMAGE' | 'VIDEO' | 'DOCUMENT'; file: Blob }) => uploadMediaSample(v.whatsappAccountId, v.format, v.file) });
