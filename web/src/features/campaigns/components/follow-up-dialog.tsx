import { FOLLOW_UP_DEFAULT_HOURS, FOLLOW_UP_GROUPS, type Campaign, type FollowUpCount, type RecipientGroup } from '@masivo/contract/campaigns';
import type { Template } from '@masivo/contract/templates';
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
import { formatNumber, formatShortDateTime, timeZoneLabel } from '@/lib/format';
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
 * The buttons a person could tap: the template's quick replies, in its order, then any other
 * text people tapped (a template edited since), each with its taps when known.
 */
export function buttonChoices(template: Pick<Template, 'components'> | undefined, taps: Array<{ button: string; taps: number }> = []): Array<{ text: string; taps: number }> {
  const fromTemplate = (template?.components ?? [])
    .filter((c) => c.type === 'BUTTONS')
    .flatMap((c) => (c.buttons ?? []) as Array<{ type?: string; text?: string }>)
    .filter((b) => b.type === 'QUICK_REPLY' && b.text)
    .map((b) => b.text!);
  const texts = [...new Set([...fromTemplate, ...taps.map((t) => t.button)])];
  return texts.map((text) => ({ text, taps: taps.find((t) => t.button === text)?.taps ?? 0 }));
}

/** «No leyeron tras 24 h: disponible desde el 27/11 10:24 (GMT-3)»: when an empty group fills by itself. */
export function fillsAtText(group: RecipientGroup, hours: string, data: Pick<FollowUpCount, 'available_from'> | undefined): string | null {
  if (group !== 'unread' || !data?.available_from) return null;
  const at = new Date(data.available_from);
  return `No leyeron tras ${hours}\u00a0h: disponible desde el ${formatShortDateTime(data.available_from)} (${timeZoneLabel(at)})`;
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
  const choices = buttonChoices(
    (templates.data ?? []).find((t) => t.id === c.template_id),
    c.replies?.taps,
  );
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
                  onChange={() => {
                    setGroup(g);
                    // The first button is the likeliest question; the operator can pick another.
                    if (g === 'tapped' && !button && choices[0]) setButton(choices[0].text);
                  }}
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
        {group === 'tapped' && choices.length > 0 && (
          <fieldset data-testid="follow-up-buttons">
            <legend className="mb-2 text-sm font-medium text-gray-700">¿Qué botón?</legend>
            <div className="space-y-1">
              {choices.map((b) => (
                <label key={b.text} className="flex min-h-11 cursor-pointer items-center gap-3 rounded-md px-2 hover:bg-gray-50">
                  <input
                    type="radio"
                    name={`${ids}-button`}
                    value={b.text}
                    checked={button === b.text}
                    onChange={() => setButton(b.text)}
                    className="h-4 w-4 shrink-0 text-blue-600"
                  />
                  <span className="text-sm text-gray-800">
                    «{b.text}»
                    {b.taps > 0 && (
                      <span className="text-gray-600">
                        {' '}
                        · {formatNumber(b.taps)} {b.taps === 1 ? 'toque' : 'toques'}
                      </span>
                    )}
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
        )}
        {group === 'tapped' && choices.length === 0 && (
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
            group === 'tapped' ? (choices.length ? 'Elige el botón para contar los contactos' : 'Escribe el texto del botón para contar los contactos') : 'Corrige las horas para contar los contactos'
          ) : count.isError ? (
            <span className="text-red-700">{errorMessage(count.error, 'Error al contar los contactos')}</span>
          ) : found === null ? (
            'Contando contactos…'
          ) : (
            <>
              <span className="text-xl font-semibold">{formatNumber(found)}</span> {found === 1 ? 'contacto' : 'contactos'} en este grupo
              {found === 0 && (
                <span className="block text-blue-800">
                  {fillsAtText(group, hours, count.data) ?? 'No hay a quién dirigir la nueva campaña.'}
                </span>
              )}
            </>
          )}
        </div>
        {settled && count.data && <RecentlyMessagedNotice data={count.data} />}

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

/**
 * With the frequency cap off nothing stops people who just got a message from getting another:
 * say how many of the group got one in the last 24 h.
 */
function RecentlyMessagedNotice({ data }: { data: FollowUpCount }) {
  const n = data.messaged_last_24h ?? 0;
  if (data.frequency_cap !== null || n === 0) return null;
  return (
    <p role="note" data-testid="follow-up-recent" className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3 text-sm text-amber-900">
      <span className="font-medium">El tope de frecuencia está desactivado.</span>{' '}
      {n === data.count && n > 1 ? `Las ${formatNumber(n)} personas` : n === 1 ? '1 de estas personas' : `${formatNumber(n)} de estas personas`}{' '}
      {n === 1 ? 'recibió' : 'recibieron'} un mensaje en las últimas 24{'\u00a0'}h y {n === 1 ? 'recibiría' : 'recibirían'} otro. Puedes activar el tope en
      Campañas.
    </p>
  );
}
