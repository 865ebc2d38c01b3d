import type { KommoAccount } from '@masivo/contract/kommo-accounts';
import { writebackSettingsSchema, type WritebackSettingsInput, type WritebackSettingsView } from '@masivo/contract/kommo-writeback';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/field';
import { errorMessage } from '@/lib/api-client';
import { useKommoPipelines, useSaveWriteback, useWritebackSettings } from '@/api/kommo-writeback';

interface Draft {
  enabled: boolean;
  notes: boolean;
  opt_out_tag: string;
  reply_tag: string;
  pipeline_id: string;
  status_id: string;
}

const toDraft = (s: WritebackSettingsView): Draft => ({
  enabled: s.enabled,
  notes: s.notes,
  opt_out_tag: s.opt_out_tag ?? '',
  reply_tag: s.reply_tag ?? '',
  pipeline_id: s.pipeline_id === null ? '' : String(s.pipeline_id),
  status_id: s.status_id === null ? '' : String(s.status_id),
});

const toInput = (d: Draft): WritebackSettingsInput => ({
  enabled: d.enabled,
  notes: d.notes,
  opt_out_tag: d.opt_out_tag.trim() || null,
  reply_tag: d.reply_tag.trim() || null,
  pipeline_id: d.pipeline_id ? Number(d.pipeline_id) : null,
  status_id: d.status_id ? Number(d.status_id) : null,
});

/** The first error the contract finds for a field, for showing under it. */
function fieldErrors(d: Draft): Partial<Record<keyof Draft, string>> {
  const parsed = writebackSettingsSchema.safeParse(toInput(d));
  if (parsed.success) return {};
  const out: Partial<Record<keyof Draft, string>> = {};
  for (const issue of parsed.error.issues) {
    const key = issue.path[0] as keyof Draft;
    out[key] ??= issue.message;
  }
  return out;
}

/**
 * "Escritura en Kommo" on a Kommo account: after each campaign, a note on every contact with
 * its result, a tag for opt-outs and one for replies, and optionally the replier's open lead
 * moved to a stage (pipelines and stages come from Kommo).
 */
export function KommoWritebackSettings({ account }: { account: KommoAccount }) {
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<Draft | null>(null);
  const settings = useWritebackSettings(account.id, true);
  const pipelines = useKommoPipelines(account.id, open);
  const save = useSaveWriteback(account.id);
  const saved = settings.data;
  const d = draft ?? (saved ? toDraft(saved) : null);
  const set = (patch: Partial<Draft>) => d && setDraft({ ...d, ...patch });
  const errors = d ? fieldErrors(d) : {};
  const pipeline = pipelines.data?.find((p) => String(p.id) === d?.pipeline_id);
  const id = (name: string) => `wb-${name}-${account.id}`;

  return (
    <details className="text-sm" data-testid="kommo-writeback" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary className="cursor-pointer text-gray-700 max-sm:flex max-sm:min-h-11 max-sm:items-center">
        Escritura en Kommo: {saved ? (saved.enabled ? 'activada' : 'desactivada') : '…'}
      </summary>
      {settings.isError && <p role="alert" className="mt-2 text-red-700">{errorMessage(settings.error, 'No se pudo leer la configuración')}</p>}
      {d && (
        <form
          className="mt-3 space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            if (Object.keys(errors).length) return;
            save.mutate(toInput(d), {
              onSuccess: () => {
                toast.success('Escritura en Kommo guardada');
                setDraft(null);
              },
              onError: (err) => toast.error(errorMessage(err, 'Error al guardar la escritura en Kommo')),
            });
          }}
        >
          <label className="flex items-center gap-2 text-gray-700 max-sm:min-h-11">
            <input type="checkbox" checked={d.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
            Escribir los resultados de cada campaña en Kommo
          </label>
          <p className="text-xs text-gray-500">
            Al terminar una campaña (y con las respuestas que lleguen hasta 72 horas después) se actualizan los contactos de esta cuenta.
            Solo las campañas que terminen después de activarla.
          </p>
          <label className="flex items-center gap-2 text-gray-700 max-sm:min-h-11">
            <input type="checkbox" checked={d.notes} onChange={(e) => set({ notes: e.target.checked })} />
            Nota en el contacto («Campaña {'{nombre}'}: entregado / leído / falló / respondió»)
          </label>
          <Input
            label="Etiqueta para bajas"
            id={id('optout')}
            value={d.opt_out_tag}
            placeholder="Baja WhatsApp"
            hint="Para quien pidió no recibir más mensajes. Vacío: sin etiqueta."
            error={errors.opt_out_tag}
            onChange={(e) => set({ opt_out_tag: e.target.value })}
          />
          <Input
            label="Etiqueta para respuestas"
            id={id('reply')}
            value={d.reply_tag}
            placeholder="Respondió WhatsApp"
            hint="Para quien respondió a la campaña. Vacío: sin etiqueta."
            error={errors.reply_tag}
            onChange={(e) => set({ reply_tag: e.target.value })}
          />
          <Select
            label="Al responder, mover el lead abierto al embudo"
            id={id('pipeline')}
            value={d.pipeline_id}
            disabled={pipelines.isLoading}
            hint={pipelines.isLoading ? 'Cargando embudos de Kommo…' : undefined}
            error={pipelines.isError ? errorMessage(pipelines.error, 'No se pudieron cargar los embudos de Kommo') : undefined}
            onChange={(e) => set({ pipeline_id: e.target.value, status_id: '' })}
          >
            <option value="">No mover el lead</option>
            {pipelines.data?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
            {d.pipeline_id && !pipeline && <option value={d.pipeline_id}>Embudo {d.pipeline_id}</option>}
          </Select>
          {d.pipeline_id && (
            <Select label="Etapa" id={id('status')} value={d.status_id} error={errors.status_id} onChange={(e) => set({ status_id: e.target.value })}>
              <option value="">Elige una etapa</option>
              {pipeline?.statuses.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
              {d.status_id && !pipeline?.statuses.some((s) => String(s.id) === d.status_id) && <option value={d.status_id}>Etapa {d.status_id}</option>}
            </Select>
          )}
          <div className="flex justify-end">
            <Button type="submit" size="sm" disabled={save.isPending || Object.keys(errors).length > 0}>
              Guardar escritura en Kommo
            </Button>
          </div>
        </form>
      )}
    </details>
  );
}
