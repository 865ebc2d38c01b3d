import type { ContactFilter } from '@masivo/contract/contact-filter';
import { ContactFilterPanel } from '@/components/contact-filter/contact-filter-panel';
import { ALL_MODES } from '@/components/contact-filter/filter-query';

/** The shared filter panel, always open and offering every mode (spec: specific values included). */
export function CampaignFilters({ kommoAccountId, filter, onChange }: { kommoAccountId: number; filter: ContactFilter; onChange: (f: ContactFilter) => void }) {
  return (
    <ContactFilterPanel
      accountId={kommoAccountId}
      value={filter}
      onChange={onChange}
      modes={ALL_MODES}
      collapsible={false}
      title="Filtros de Contactos"
      padding="p-4 sm:p-6"
    />
  );
}
