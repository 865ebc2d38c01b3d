import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function CampaignsPage() {
  return <PageHeader title="Campañas" description="Pantalla en construcción" />;
}
