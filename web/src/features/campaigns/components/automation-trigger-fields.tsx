import { TRIGGER_KIND_LABELS, TRIGGER_KINDS, type AutomationTriggerInput, type TriggerKind } from '@masivo/contract/automation-trigger';
import { Input, Select } from '@/components/ui/field';
import { useKommoPipelines } from '@/api/kommo-writeback';
import { errorMessage } from '@/lib/api-client';

export const DELAY_UNITS = { minutes: 60, hours: 3600, days: 86_400 } as const;
export type DelayUnit = keyof typeof DELAY_UNITS;
const UNIT_LABELS: Record<DelayUnit, string> = { minutes: 'minutos', hours: 'horas', days: 'días' };

/** The form's trigger: ids as the selects hold them, the delay as a number and a unit. */
export interface TriggerDraft {
  pipeline_id: string;
  status_id: string;
  on: TriggerKind;
  delay: string;
  unit: DelayUnit;
  reentry_days: string;
}

export const EMPTY_TRIGGER: TriggerDraft = { pipeline_id: '', status_id: '', on: 'enter', delay: '0', unit: 'minutes', reentry_days: '30' };

/** What the server validates (the contract's trigger schema, Spanish messages). */
export function triggerPayload(t: TriggerDraft): AutomationTriggerInput {
  return {
    pipeline_id: Number(t.pipeline_id) || 0,
    status_id: Number(t.status_id) || 0,
    on: t.on,
    delay_seconds: Math.round(Number(t.delay || 0) * DELAY_UNITS[t.unit]),
    reentry_days: Number(t.reentry_days || 0),
  };
}

/**
 * «Campaña automática»: the Kommo stage whose leads get the message (pipelines and stages from the
 * account, the endpoint the write-back settings use), when (enters it / is created in it), after
 * how long, and how many days a lead that comes back to the stage is not messaged again.
 */
export function AutomationTriggerFields({ kommoAccountId, value, onChange }: { kommoAccountId: number | undefined; value: TriggerDraft; onChange: (v: TriggerDraft) => void }) {
  const pipelines = useKommoPipelines(kommoAccountId ?? 0, Boolean(kommoAccountId));
  const pipeline = pipelines.data?.find((p) => String(p.id) === value.pipeline_id);
  const set = (patch: Partial<TriggerDraft>) => onChange({ ...value, ...patch });
  return (
    <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
      <Select
        label="Embudo de Kommo *"
        id="trigger_pipeline"
        value={value.pipeline_id}
        disabled={!kommoAccountId || pipelines.isLoading}
        hint={!kommoAccountId ? 'Elige primero la cuenta Kommo.' : pipelines.isLoading ? 'Cargando embudos de Kommo…' : undefined}
        error={pipelines.isError ? errorMessage(pipelines.error, 'No se pudieron cargar los embudos de Kommo') : undefined}
        onChange={(e) => set({ pipeline_id: e.target.value, status_id: '' })}
      >
        <option value="">Selecciona un embudo</option>
        {pipelines.data?.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </Select>
      <Select label="Etapa *" id="trigger_status" value={value.status_id} disabled={!pipeline} onChange={(e) => set({ status_id: e.target.value })}>
        <option value="">Selecciona una etapa</option>
        {pipeline?.statuses.map((s) => (
          <option key={s.id} value={s.id}>
            {s.name}
          </option>
        ))}
      </Select>
      <Select label="Cuándo se envía *" id="trigger_on" value={value.on} onChange={(e) => set({ on: e.target.value as TriggerKind })}>
        {TRIGGER_KINDS.map((k) => (
          <option key={k} value={k}>
            {TRIGGER_KIND_LABELS[k]}
          </option>
        ))}
      </Select>
      <div className="grid grid-cols-[minmax(0,1fr)_auto] items-end gap-2">
        <Input label="Demora" id="trigger_delay" type="number" min={0} value={value.delay} onChange={(e) => set({ delay: e.target.value })} />
        <Select label="Unidad" id="trigger_unit" value={value.unit} onChange={(e) => set({ unit: e.target.value as DelayUnit })}>
          {(Object.keys(DELAY_UNITS) as DelayUnit[]).map((u) => (
            <option key={u} value={u}>
              {UNIT_LABELS[u]}
            </option>
          ))}
        </Select>
      </div>
      <Input
        label="Días sin repetir por reingreso"
        id="trigger_reentry"
        type="number"
        min={0}
        value={value.reentry_days}
        hint="Un lead que sale y vuelve a la etapa dentro de estos días no recibe el mensaje otra vez (0: siempre)."
        onChange={(e) => set({ reentry_days: e.target.value })}
      />
    </div>
  );
}
