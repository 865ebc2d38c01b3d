import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function NewCampaignPage() {
  return <PageHeader title="Nueva Campaña" description="Pantalla en construcción" />;
}
