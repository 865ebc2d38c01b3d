import type { Campaign } from '@masivo/contract/campaigns';
import { CalendarClock, Pencil, Undo2 } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/field';
import { useUpdateCampaign } from '../api/update-campaign';
import { isFutureLocalInput, isoToLocalInput, localInputToIso, nowAsLocalInput } from './schedule';

/** A campaign that has not started yet can still change: its form, its date, or back to draft. */
export const isChangeable = (c: Pick<Campaign, 'status' | 'started_at'>) => (c.status === 'draft' || c.status === 'scheduled') && !c.started_at;

/**
 * «Editar» (the campaign's form), «Programar» / «Cambiar fecha» and, for a scheduled campaign,
 * «Volver a borrador»: the changes a draft or a scheduled campaign allows before it sends.
 */
export function ScheduleActions({ campaign: c, busy }: { campaign: Campaign; busy?: boolean }) {
  const [picking, setPicking] = useState(false);
  const update = useUpdateCampaign(c.id);
  if (!isChangeable(c)) return null;
  const scheduled = c.status === 'scheduled';
  // The form edits a filter's audience; explicit recipients (no Kommo account) are managed through the API.
  const editable = c.audience_kind !== 'explicit';
  return (
    <>
      {editable && (
        <Link
          to={`/campaigns/${c.id}/edit`}
          className="inline-flex items-center justify-center gap-2 rounded-md border border-gray-300 bg-white px-4 py-2 text-sm font-medium text-gray-700 hover:bg-gray-50 max-sm:min-h-11"
        >
          <Pencil className="h-4 w-4" aria-hidden="true" />
          Editar
        </Link>
      )}
      <Button variant="secondary" disabled={busy || update.isPending} onClick={() => setPicking(true)}>
        <CalendarClock className="h-4 w-4" aria-hidden="true" />
        {scheduled ? 'Cambiar fecha' : 'Programar'}
      </Button>
      {scheduled && (
        <Button
          variant="secondary"
          disabled={busy || update.isPending}
          onClick={() => update.mutate({ body: { scheduled_at: null }, success: 'La campaña volvió a borrador' })}
        >
          <Undo2 className="h-4 w-4" aria-hidden="true" />
          Volver a borrador
        </Button>
      )}
      {picking && <ScheduleDialog campaign={c} onClose={() => setPicking(false)} />}
    </>
  );
}

/** Picks the moment a draft is sent, or moves a scheduled one (the browser's local time). */
function ScheduleDialog({ campaign: c, onClose }: { campaign: Campaign; onClose: () => void }) {
  const [value, setValue] = useState(() => (c.scheduled_at ? isoToLocalInput(c.scheduled_at) : ''));
  const [error, setError] = useState<string | undefined>();
  const update = useUpdateCampaign(c.id);
  const scheduled = c.status === 'scheduled';
  const save = () => {
    if (!value) return setError('Elige la fecha y hora de envío');
    if (!isFutureLocalInput(value)) return setError('La fecha de programación debe ser futura');
    update.mutate({ body: { scheduled_at: localInputToIso(value) }, success: scheduled ? 'Fecha de envío actualizada' : 'Campaña programada' }, { onSuccess: onClose });
  };
  return (
    <Dialog
      open
      onOpenChange={(next) => !next && onClose()}
      title={scheduled ? 'Cambiar fecha de envío' : 'Programar envío'}
      description="La campaña empieza a enviarse sola a esa hora (hora de este navegador)."
    >
      <form
        className="space-y-4"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <Input
          label="Fecha y hora de envío"
          id="reschedule_at"
          type="datetime-local"
          min={nowAsLocalInput()}
          value={value}
          error={error}
          onChange={(e) => {
            setError(undefined);
            setValue(e.target.value);
          }}
        />
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onClose}>
            Cancelar
          </Button>
          <Button type="submit" disabled={update.isPending}>
            {update.isPending ? 'Guardando...' : scheduled ? 'Guardar fecha' : 'Programar'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
