import { CalendarDays, CheckCircle, MessageSquare, Phone, ShieldCheck } from 'lucide-react';
import { StatCard } from '@/components/ui/card';
import { formatNumber } from '@/lib/format';
import { useErrorToast } from '@/lib/use-error-toast';
import { useWhatsAppStats } from '../api/get-whatsapp-stats';

export function AccountStats() {
  const { data, error } = useWhatsAppStats();
  useErrorToast(error, 'Error al cargar las estadísticas');
  return (
    <div className="mb-6 grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-5">
      <StatCard title="Total Cuentas" value={formatNumber(data?.total_accounts)} icon={<Phone className="h-5 w-5" />} />
      <StatCard title="Cuentas Activas" value={formatNumber(data?.active_accounts)} icon={<CheckCircle className="h-5 w-5" />} tone="green" />
      <StatCard title="Verificadas" value={formatNumber(data?.verified_accounts)} icon={<ShieldCheck className="h-5 w-5" />} tone="purple" />
      <StatCard title="Mensajes Hoy" value={formatNumber(data?.daily_messages_sent)} icon={<MessageSquare className="h-5 w-5" />} tone="yellow" />
      <StatCard title="Mensajes Este Mes" value={formatNumber(data?.monthly_messages_sent)} icon={<CalendarDays className="h-5 w-5" />} tone="gray" />
    </div>
  );
}
