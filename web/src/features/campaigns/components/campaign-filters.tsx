import type { ContactFilter } from '@masivo/contract/contact-filter';
import { Input } from '../../../components/ui/field';

/** Contact filters of the campaign form (temporary: search only, until the shared panel lands). */
export function CampaignFilters({ filter, onChange }: { kommoAccountId: number; filter: ContactFilter; onChange: (f: ContactFilter) => void }) {
  return (
    <Input
      label="Buscar"
      id="campaign-filter-search"
      placeholder="Buscar por nombre, email o teléfono"
      value={filter.searchQuery}
      onChange={(e) => onChange({ ...filter, searchQuery: e.target.value })}
    />
  );
}
