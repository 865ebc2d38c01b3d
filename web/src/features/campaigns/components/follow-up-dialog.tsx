import { FOLLOW_UP_DEFAULT_HOURS, FOLLOW_UP_GROUPS, type Campaign, type RecipientGroup } from '@masivo/contract/campaigns';
import { UsersRound } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Input, Select } from '@/components/ui/field';
import { FormActions } from '@/components/ui/form-actions';
import { useAccountTemplates } from '@/api/templates';
import { errorMessage } from '@/lib/api-client';
import { formatNumber } from '@/lib/format';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { useCreateFollowUp, useFollowUpCount, type FollowUpGroup } from '../api/follow-up';

/** What each group means, as the operator would say it. */
export const FOLLOW_UP_OPTIONS: Record<RecipientGroup, string> = {
  unread: 'No leyeron el mensaje después de unas horas',
  read_not_replied: 'Leyeron y no respondieron',
  not_replied: 'No respondieron',
  failed_retryable: 'Fallaron por un motivo que vale la pena reintentar',
  tapped: 'Tocaron un botón',
  replied: 'Respondieron',
};

/** The query for the chosen group, or null while it lacks a parameter (hours out of range, no button). */
function groupQuery(group: RecipientGroup, hours: string, button: string): FollowUpGroup | null {
  if (group === 'unread') {
    const h = Number(hours);
    return Number.isInteger(h) && h >= 1 && h <= 720 ? { group, hours: h } : null;
  }
  if (group === 'tapped') return button.trim() ? { group, button: button.trim() } : null;
  return { group };
}

/**
 * "Nueva campaña para…": a draft over exactly a group of this campaign's recipients. Shown once the
 * campaign has started (before that nobody was reached). The count comes from the server for the
 * group chosen, before anything is created.
 */
export function FollowUpButton({ campaign }: { campaign: Campaign }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)}>
        <UsersRound className="h-4 w-4" aria-hidden="true" />
        Nueva campaña para…
      </Button>
      {open && <FollowUpDialog campaign={campaign} onClose={() => setOpen(false)} />}
    </>
  );
}

export function FollowUpDialog({ campaign: c, onClose }: { campaign: Campaign; onClose: () => void }) {
  const navigate = useNavigate();
  const ids = useId();
  const [group, setGroup] = useState<RecipientGroup>('unread');
  const [hours, setHours] = useState(String(FOLLOW_UP_DEFAULT_HOURS));
  const [button, setButton] = useState('');
  const [name, setName] = useState('');
  const [templateId, setTemplateId] = useState('');
  const query = groupQuery(group, hours, button);
  const debounced = useDebouncedValue(query, 300);
  const count = useFollowUpCount(c.id, debounced);
  const templates = useAccountTemplates(c.whatsapp_account_id);
  const others = (templates.data ?? []).filter((t) => t.status === 'approved' && t.id !== c.template_id);
  const create = useCreateFollowUp(c.id);
  const settled = debounced !== null && JSON.stringify(debounced) === JSON.stringify(query) && !count.isFetching;
  const found = settled && count.data ? count.data.count : null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!query) return;
    create.mutate(
      { ...query, ...(name.trim() ? { name: name.trim() } : {}), ...(templateId ? { template_id: Number(templateId) } : {}) },
      {
        onSuccess: (created) => {
          toast.success('Campaña creada en borrador');
          onClose();
          navigate(`/campaigns/${created.id}`);
        },
        onError: (err) => toast.error(errorMessage(err, 'Error al crear la campaña')),
      },
    );
  };

  return (
    <Dialog
      open
      onOpenChange={(next) => !next && onClose()}
      title="Nueva campaña para…"
      description={`Una campaña en borrador dirigida exactamente a estos contactos de «${c.name}». Antes de enviarla se aplican la lista negra, las bajas, los duplicados y el tope de frecuencia.`}
    >
      <form onSubmit={submit} className="space-y-4" noValidate>
        <fieldset>
          <legend className="mb-2 text-sm font-medium text-gray-700">¿A quiénes?</legend>
          <div className="space-y-1">
            {FOLLOW_UP_GROUPS.map((g) => (
              <label key={g} className="flex min-h-11 cursor-pointer items-center gap-3 rounded-md px-2 hover:bg-gray-50">
                <input
                  type="radio"
                  name={`${ids}-group`}
                  value={g}
                  checked={group === g}
                  onChange={() => setGroup(g)}
                  className="h-4 w-4 shrink-0 text-blue-600"
                />
                <span className="text-sm text-gray-800">{FOLLOW_UP_OPTIONS[g]}</span>
              </label>
            ))}
          </div>
        </fieldset>

        {group === 'unread' && (
          <Input
            id={`${ids}-hours`}
            label="Horas desde el envío"
            type="number"
            inputMode="numeric"
            min={1}
            max={720}
            value={hours}
            onChange={(e) => setHours(e.target.value)}
            error={query ? undefined : 'Indica un número entero de horas entre 1 y 720'}
            hint="Quienes recibieron el mensaje hace al menos estas horas y no lo leyeron"
          />
        )}
        {group === 'tapped' && (
          <Input
            id={`${ids}-button`}
            label="Texto del botón"
            value={button}
            maxLength={60}
            onChange={(e) => setButton(e.target.value)}
            hint="Tal como lo vio la persona, por ejemplo «Sí, me interesa»"
          />
        )}

        <div role="status" aria-live="polite" aria-atomic="true" className="rounded-md border border-blue-200 bg-blue-50 px-4 py-3 text-sm text-blue-900" data-testid="follow-up-count">
          {!query ? (
            group === 'tapped' ? 'Escribe el texto del botón para contar los contactos' : 'Corrige las horas para contar los contactos'
          ) : count.isError ? (
            <span className="text-red-700">{errorMessage(count.error, 'Error al contar los contactos')}</span>
          ) : found === null ? (
            'Contando contactos…'
          ) : (
            <>
              <span className="text-xl font-semibold">{formatNumber(found)}</span> {found === 1 ? 'contacto' : 'contactos'} en este grupo
              {found === 0 && <span className="block text-blue-800">No hay a quién dirigir la nueva campaña.</span>}
            </>
          )}
        </div>

        <Input
          id={`${ids}-name`}
          label="Nombre de la nueva campaña"
          value={name}
          maxLength={200}
          onChange={(e) => setName(e.target.value)}
          placeholder={`${c.name} · …`}
          hint="Si lo dejas vacío, se nombra por la campaña y el grupo"
        />
        <Select id={`${ids}-template`} label="Plantilla" value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
          <option value="">La misma: {c.template_name ?? 'sin plantilla'}</option>
          {others.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} ({t.language})
            </option>
          ))}
        </Select>

        <FormActions onCancel={onClose} pending={create.isPending || !found} label="Crear borrador" pendingLabel={create.isPending ? 'Creando…' : 'Crear borrador'} />
      </form>
    </Dialog>
  );
}
