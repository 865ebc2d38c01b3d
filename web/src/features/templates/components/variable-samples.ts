import { BUILT_IN_VARIABLES, CUSTOM_FIELD_PREFIX, type AvailableVariable } from '@masivo/contract/variables';

/** Built-in contact fields when the server's list is not available (spec §3 fallbacks). */
export const FALLBACK_VARIABLES: AvailableVariable[] = [
  ...BUILT_IN_VARIABLES.filter((v) => v.key !== 'email'),
  { key: 'custom_fields.Ciudad', displayName: 'Ciudad', category: 'custom', description: 'Ejemplo de campo personalizado' },
];

const SAMPLES: Record<string, string> = {
  name: 'Juan Pérez',
  first_name: 'Juan',
  last_name: 'Pérez',
  phone: '+5491112345678',
  email: 'juan@ejemplo.com',
};

/** A plausible value for previews and examples: a fixed sample, or the field name in brackets. */
export function sampleValue(key: string, variables: AvailableVariable[] = []): string {
  if (SAMPLES[key]) return SAMPLES[key];
  const known = variables.find((v) => v.key === key);
  const name = known?.displayName ?? (key.startsWith(CUSTOM_FIELD_PREFIX) ? key.slice(CUSTOM_FIELD_PREFIX.length) : key);
  return `[${name}]`;
}
