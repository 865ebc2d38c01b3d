import type { ContactFilter, CustomFieldFilter, CustomFieldMode } from '@masivo/contract/contact-filter';
import { isCustomFieldFilterActive } from '@masivo/contract/contact-filter';
import { useFieldValues } from './filter-data';
import { MODE_LABELS } from './filter-query';

interface CustomFieldFilterProps {
  accountId: number;
  field: string;
  value: CustomFieldFilter | undefined;
  modes: CustomFieldMode[];
  /** The whole filter, so "specific" lists the values left by the other filters. */
  filter: ContactFilter;
  onChange(next: CustomFieldFilter | undefined): void;
}

const fieldId = (field: string) => `cf-${field.replace(/[^\w-]/g, '_')}`;

/** One custom field: a mode select and, depending on the mode, a text box or a value list. */
export function CustomFieldFilterRow({ accountId, field, value, modes, filter, onChange }: CustomFieldFilterProps) {
  const mode = value?.mode ?? 'none';
  const id = fieldId(field);
  const active = isCustomFieldFilterActive(value);
  const values = useFieldValues(accountId, field, filter, mode === 'specific');

  const setMode = (next: CustomFieldMode) => onChange(next === 'none' ? undefined : { mode: next, values: [], manualValue: '' });
  const selected = value?.values ?? [];
  const toggleValue = (v: string) =>
    onChange({ mode: 'specific', values: selected.includes(v) ? selected.filter((x) => x !== v) : [...selected, v] });

  return (
    <div className="space-y-2 rounded-md border border-gray-200 p-3">
      <div className="flex items-center justify-between gap-2">
        <label htmlFor={id} className="text-sm font-medium text-gray-700">
          {field}
        </label>
        {active && (
          <button type="button" onClick={() => onChange(undefined)} className="text-xs text-blue-600 hover:underline" aria-label={`Limpiar filtro de ${field}`}>
            Limpiar
          </button>
        )}
      </div>
      <select
        id={id}
        value={mode}
        onChange={(e) => setMode(e.target.value as CustomFieldMode)}
        className="block w-full rounded-md border border-gray-300 px-2 py-1.5 text-sm focus:border-blue-500"
      >
        {modes.map((m) => (
          <option key={m} value={m}>
            {MODE_LABELS[m]}
          </option>
        ))}
      </select>
      {mode === 'manual' && (
        <input
          type="text"
          aria-label={`Texto que contiene ${field}`}
          placeholder="Texto a buscar..."
          value={value?.manualValue ?? ''}
          onChange={(e) => onChange({ mode: 'manual', manualValue: e.target.value })}
          className="block w-full rounded-md border border-gray-300 px-2 py-1.5 text-sm focus:border-blue-500"
        />
      )}
      {mode === 'specific' && (
        <div className="max-h-40 space-y-1 overflow-y-auto rounded border border-gray-100 p-2">
          {values.isLoading && <p className="text-xs text-gray-500">Cargando valores...</p>}
          {values.data?.values.length === 0 && <p className="text-xs text-gray-500">Sin valores</p>}
          {values.data?.values.map((v) => (
            <label key={v.value} className="flex items-center gap-2 text-sm text-gray-700">
              <input type="checkbox" checked={selected.includes(v.value)} onChange={() => toggleValue(v.value)} />
              <span className="flex-1 truncate">{v.value}</span>
              <span className="text-xs text-gray-500">{v.count.toLocaleString('es-ES')}</span>
            </label>
          ))}
          {/* Values chosen earlier that the other filters now exclude stay visible so they can be removed. */}
          {selected
            .filter((s) => !values.data?.values.some((v) => v.value === s))
            .map((s) => (
              <label key={s} className="flex items-center gap-2 text-sm text-gray-500">
                <input type="checkbox" checked onChange={() => toggleValue(s)} />
                <span className="flex-1 truncate">{s}</span>
              </label>
            ))}
        </div>
      )}
    </div>
  );
}
