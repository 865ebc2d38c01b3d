import type { Campaign } from '@masivo/contract/campaigns';
import type { Me } from '@masivo/contract/organizations';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import toast from 'react-hot-toast';
import { api, errorMessage } from '@/lib/api-client';
import { campaignsKeys } from '@/api/campaigns';

/** Whether the member may start directly; without 'campaigns.send' a start asks for approval. */
export const maySendDirectly = (me: Me | undefined) => !me || me.permissions.includes('campaigns.send');

/** «Aprobar» and «Rechazar»: a member with 'campaigns.approve' who neither created the campaign nor asked. */
export function mayDecide(me: Me | undefined, c: Campaign): boolean {
  const a = c.approval;
  if (!me || !a || a.status !== 'pending' || c.status !== 'pending_approval') return false;
  return me.permissions.includes('campaigns.approve') && me.user.id !== a.created_by && me.user.id !== a.requested_by;
}

function useDecision<B>(path: 'approve' | 'reject', success: string, error: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: B }) => api.post<Campaign>(`/campaigns/${id}/${path}`, body),
    onSuccess: () => {
      toast.success(success);
      return qc.invalidateQueries({ queryKey: campaignsKeys.all });
    },
    onError: (err) => {
      toast.error(errorMessage(err, error));
      // A 409 voided the request: the screen shows the campaign as it is now.
      void qc.invalidateQueries({ queryKey: campaignsKeys.all });
    },
  });
}

export const useApproveCampaign = () => useDecision<{ note?: string }>('approve', 'Campaña aprobada', 'Error al aprobar la campaña');
export const useRejectCampaign = () => useDecision<{ reason: string }>('reject', 'Campaña rechazada: volvió a borrador', 'Error al rechazar la campaña');
