import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function BlacklistPage() {
  return <PageHeader title="Blacklist" description="Pantalla en construcción" />;
}
