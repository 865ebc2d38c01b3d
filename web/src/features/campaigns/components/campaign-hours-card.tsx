import { CAN_EDIT, type Campaign } from '@masivo/contract/campaigns';
import { WEEKDAY_LABELS, type SendingHoursInput } from '@masivo/contract/sending-hours';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { campaignsKeys } from '@/api/campaigns';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { api, errorMessage } from '@/lib/api-client';
import { SendingHoursFields, sendingHoursError } from '@/components/sending-hours-fields';

/** "Lun, Mar, Mié · 09:00–20:00 · sin feriados" */
export function describeSendingHours(h: Campaign['sending_hours']): string {
  if (!h) return 'Sin horario: se envía a cualquier hora';
  const days = h.days.length === 7 ? 'Todos los días' : h.days.map((d) => WEEKDAY_LABELS[d]).join(', ');
  return `${days} · ${h.start}–${h.end}${h.skip_holidays ? ' · sin feriados' : ''} (hora local de cada destinatario)`;
}

/** The campaign's "Horario de envío", editable while it can be edited and while it sends. */
export function CampaignHoursCard({ campaign }: { campaign: Campaign }) {
  const qc = useQueryClient();
  const [draft, setDraft] = useState<{ value: SendingHoursInput | null } | null>(null);
  const save = useMutation({
    mutationFn: (value: SendingHoursInput | null) => api.put<Campaign>(`/campaigns/${campaign.id}`, { sending_hours: value }),
    onSuccess: () => {
      toast.success('Horario de envío actualizado');
      setDraft(null);
      return qc.invalidateQueries({ queryKey: campaignsKeys.all });
    },
    onError: (err) => toast.error(errorMessage(err, 'Error al guardar el horario de envío')),
  });
  const editable = campaign.status === 'sending' || CAN_EDIT.includes(campaign.status);
  const error = draft ? sendingHoursError(draft.value) : null;
  return (
    <Card className="p-6">
      <div className="mb-3 flex items-center justify-between gap-3">
        <h2 className="text-lg font-semibold text-gray-900">Horario de envío</h2>
        {editable && !draft && (
          <Button variant="secondary" size="sm" onClick={() => setDraft({ value: campaign.sending_hours ?? null })}>
            Editar horario
          </Button>
        )}
      </div>
      {!draft && <p className="text-sm text-gray-700">{describeSendingHours(campaign.sending_hours ?? null)}</p>}
      {draft && (
        <div className="space-y-4">
          <SendingHoursFields value={draft.value} onChange={(value) => setDraft({ value })} error={error} />
          <div className="flex justify-end gap-3">
            <Button variant="secondary" onClick={() => setDraft(null)}>
              Cancelar
            </Button>
            <Button disabled={!!error || save.isPending} onClick={() => save.mutate(draft.value)}>
              Guardar horario
            </Button>
          </div>
        </div>
      )}
    </Card>
  );
}
