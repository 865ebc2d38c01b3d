import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function WhatsAppAccountsPage() {
  return <PageHeader title="Cuentas WhatsApp" description="Pantalla en construcción" />;
}
