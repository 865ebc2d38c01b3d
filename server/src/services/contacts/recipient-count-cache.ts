import type { ContactFilterInput } from '@masivo/contract/contact-filter';

/** Same filter, same key, whatever the order of object keys or of tags. */
export function filterKey(f: ContactFilterInput): string {
  const fields = Object.entries(f.customFieldFilters ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => [k, v.mode, [...(v.values ?? [])].sort(), v.manualValue ?? v.value ?? '']);
  const excluded = [...new Set(f.excludedTags ?? [])].sort();
  return JSON.stringify([(f.searchQuery ?? '').trim(), [...(f.tags ?? [])].sort(), f.tagOperator ?? 'OR', excluded, fields]);
}
