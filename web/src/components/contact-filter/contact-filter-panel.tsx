import type { ContactFilter, CustomFieldFilter, CustomFieldMode } from '@masivo/contract/contact-filter';
import { EMPTY_FILTER, isCustomFieldFilterActive, isFilterActive } from '@masivo/contract/contact-filter';
import { ChevronDown, ChevronUp, Filter, Search } from 'lucide-react';
import { useState } from 'react';
import { useErrorToast } from '../../lib/use-error-toast';
import { Badge } from '../ui/badge';
import { Card } from '../ui/card';
import { CustomFieldFilterRow } from './custom-field-filter';
import { useAccountCustomFields, useAccountTags } from './filter-data';
import { CONTACTS_SCREEN_MODES } from './filter-query';
import { TagFilter } from './tag-filter';

export interface ContactFilterPanelProps {
  accountId: number;
  value: ContactFilter;
  onChange(next: ContactFilter): void;
  /** Field modes offered; the contacts screen leaves out "specific", the campaign form offers it. */
  modes?: CustomFieldMode[];
  /** Collapsible panel titled 'Filtros' (contacts screen) or always open (campaign form). */
  collapsible?: boolean;
  defaultOpen?: boolean;
  title?: string;
  /** Card padding: the campaign form's sections use p-6 (p-4 on phones), so its filters line up with them. */
  padding?: 'p-4' | 'p-4 sm:p-6';
}

/**
 * The contact filter of the spec, shared by the contacts screen and the campaign form:
 * free-text search, tag chips with AND / OR, the tags to leave out, and a mode per custom field.
 */
export function ContactFilterPanel({
  accountId,
  value,
  onChange,
  modes = CONTACTS_SCREEN_MODES,
  collapsible = true,
  defaultOpen = true,
  title = 'Filtros',
  padding = 'p-4',
}: ContactFilterPanelProps) {
  const [open, setOpen] = useState(defaultOpen);
  const tags = useAccountTags(accountId);
  const fields = useAccountCustomFields(accountId);
  useErrorToast(fields.error, 'Error al cargar campos personalizados');
  const active = isFilterActive(value);
  const activeFields = Object.values(value.customFieldFilters).filter((f) => isCustomFieldFilterActive(f)).length;
  const shown = !collapsible || open;

  const setField = (name: string, next: CustomFieldFilter | undefined) => {
    const rest = { ...value.customFieldFilters };
    if (next) rest[name] = next;
    else delete rest[name];
    onChange({ ...value, customFieldFilters: rest });
  };

  return (
    <Card className={padding}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <button
          type="button"
          className="flex items-center gap-2 text-left"
          onClick={() => collapsible && setOpen((o) => !o)}
          aria-expanded={shown}
          disabled={!collapsible}
        >
          <Filter className="h-4 w-4 text-gray-500" />
          <span className="font-semibold text-gray-900">{title}</span>
          {active && <Badge tone="blue">Activos</Badge>}
          {collapsible && (open ? <ChevronUp className="h-4 w-4 text-gray-400" /> : <ChevronDown className="h-4 w-4 text-gray-400" />)}
        </button>
        {active && (
          <button type="button" onClick={() => onChange({ ...EMPTY_FILTER })} className="text-sm text-red-600 hover:underline">
            Limpiar todos los filtros
          </button>
        )}
      </div>

      {shown && (
        <div className="mt-4 space-y-5">
          <div className="relative">
            <label htmlFor={`contact-search-${accountId}`} className="sr-only">
              Buscar
            </label>
            <Search className="pointer-events-none absolute top-1/2 left-3 h-4 w-4 -translate-y-1/2 text-gray-400" aria-hidden="true" />
            <input
              id={`contact-search-${accountId}`}
              type="search"
              value={value.searchQuery}
              onChange={(e) => onChange({ ...value, searchQuery: e.target.value })}
              placeholder="Buscar por nombre, teléfono o email..."
              className="block w-full rounded-md border border-gray-300 py-2 pr-3 pl-9 text-sm focus:border-blue-500"
            />
          </div>

          <TagSection value={value} onChange={onChange} tags={tags.data ?? []} loading={tags.isLoading} />

          <div className="space-y-2">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <span className="text-sm font-medium text-gray-700">
                Campos personalizados{activeFields > 0 ? ` (${activeFields} ${activeFields === 1 ? 'activo' : 'activos'})` : ''}
              </span>
              {activeFields > 0 && (
                <button type="button" onClick={() => onChange({ ...value, customFieldFilters: {} })} className="text-xs text-blue-600 hover:underline">
                  Limpiar campos
                </button>
              )}
            </div>
            {fields.data?.length === 0 && <p className="text-sm text-gray-500">Sincroniza la cuenta para filtrar por campos personalizados</p>}
            <div className="grid max-h-96 gap-3 overflow-y-auto sm:grid-cols-2 lg:grid-cols-3">
              {fields.data?.map((f) => (
                <CustomFieldFilterRow
                  key={f.name}
                  accountId={accountId}
                  field={f.name}
                  value={value.customFieldFilters[f.name]}
                  modes={modes}
                  filter={value}
                  onChange={(next) => setField(f.name, next)}
                />
              ))}
            </div>
          </div>
        </div>
      )}
    </Card>
  );
}


/**
 * The included tags (any / all) and the excluded ones ("Sin las etiquetas"). A tag is on one side
 * at most: choosing it on one side takes it off the other, so the filter never contradicts itself.
 */
function TagSection({ value, onChange, tags, loading }: { value: ContactFilter; onChange(f: ContactFilter): void; tags: string[]; loading: boolean }) {
  if (loading) return <p className="text-sm text-gray-500">Cargando etiquetas...</p>;
  const excluded = value.excludedTags ?? [];
  return (
    <div className="space-y-4">
      <TagFilter
        tags={tags}
        selected={value.tags}
        operator={value.tagOperator}
        onChange={(next, tagOperator) => onChange({ ...value, tags: next, tagOperator, excludedTags: excluded.filter((t) => !next.includes(t)) })}
      />
      {tags.length > 0 && (
        <TagFilter
          exclude
          tags={tags}
          selected={excluded}
          operator={value.tagOperator}
          onChange={(next) => onChange({ ...value, excludedTags: next, tags: value.tags.filter((t) => !next.includes(t)) })}
        />
      )}
    </div>
  );
}
