import type { CustomFieldMode } from '@masivo/contract/contact-filter';

// The wire format (`filterToQuery`, `filterToBody`, `EMPTY_FILTER`) lives in the contract; this file holds the panel's choices.

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
