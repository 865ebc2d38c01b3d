import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function DashboardPage() {
  return <PageHeader title="Dashboard" description="Pantalla en construcción" />;
}
