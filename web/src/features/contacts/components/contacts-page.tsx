import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function ContactsPage() {
  return <PageHeader title="Contactos" description="Pantalla en construcción" />;
}
