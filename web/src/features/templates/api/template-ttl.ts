import type { UpdateTemplateTtlInput } from '@masivo/contract/marketing-messages';
import type { Template } from '@masivo/contract/templates';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { templatesKeys } from '@/api/templates';

/** «Vencimiento» of a marketing template (changed at Meta too). */
export const setTemplateTtl = (id: number, input: UpdateTemplateTtlInput) => api.patch<Template>(`/templates/${id}/ttl`, input);

export function useSetTemplateTtl() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { id: number; ttl: number | null }) => setTemplateTtl(v.id, { message_send_ttl_seconds: v.ttl }),
    onSettled: () => qc.invalidateQueries({ queryKey: templatesKeys.all }),
  });
}
