import { PageHeader } from '../../../components/ui/page-header';

// Placeholder until this screen's issue lands.
export function KommoAccountsPage() {
  return <PageHeader title="Cuentas Kommo" description="Pantalla en construcción" />;
}
