import type { ContactFilter, CustomFieldMode } from '@masivo/contract/contact-filter';
import { isCustomFieldFilterActive } from '@masivo/contract/contact-filter';

export const EMPTY_FILTER: ContactFilter = { searchQuery: '', tags: [], tagOperator: 'OR', customFieldFilters: {} };

/** Spec §2: the contacts screen offers every mode except specific values; the campaign form offers all. */
export const CONTACTS_SCREEN_MODES: CustomFieldMode[] = ['none', 'manual', 'exists', 'notExists'];
export const ALL_MODES: CustomFieldMode[] = ['none', 'specific', 'manual', 'exists', 'notExists'];

export const MODE_LABELS: Record<CustomFieldMode, string> = {
  none: 'Sin filtro',
  specific: 'Valores Específicos',
  manual: 'Texto Contiene',
  exists: 'Está Lleno (No Vacío)',
  notExists: 'Está Vacío o No Existe',
};

/** Only the field filters that narrow anything travel; the rest would just vary cache keys. */
export function activeFieldFilters(f: ContactFilter): ContactFilter['customFieldFilters'] {
  return Object.fromEntries(Object.entries(f.customFieldFilters).filter(([, v]) => isCustomFieldFilterActive(v)));
}

/** The filter as the API's query parameters (tags and field filters as JSON text, spec §7). */
export function filterToQuery(f: ContactFilter): Record<string, string | undefined> {
  const fields = activeFieldFilters(f);
  return {
    searchQuery: f.searchQuery.trim() || undefined,
    tags: f.tags.length ? JSON.stringify(f.tags) : undefined,
    tagOperator: f.tags.length ? f.tagOperator : undefined,
    customFieldFilters: Object.keys(fields).length ? JSON.stringify(fields) : undefined,
  };
}

/** The filter as a request body (export, campaign creation). */
export function filterToBody(f: ContactFilter): ContactFilter {
  return { searchQuery: f.searchQuery.trim(), tags: f.tags, tagOperator: f.tagOperator, customFieldFilters: activeFieldFilters(f) };
}
