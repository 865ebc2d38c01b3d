import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function TemplatesPage() {
  return <PageHeader title="Templates" description="Pantalla en construcción" />;
}
