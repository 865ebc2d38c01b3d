import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function CampaignDetailPage() {
  return <PageHeader title="Campaña" description="Pantalla en construcción" />;
}
