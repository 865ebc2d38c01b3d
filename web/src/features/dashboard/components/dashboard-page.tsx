import type { Campaign } from '@masivo/contract/campaigns';
import { CheckCircle, Clock, Send, Users } from 'lucide-react';
import { Link } from 'react-router';
import { CampaignProgressBar, CampaignStatusBadge } from '@/components/campaign-status';
import { Card, StatCard } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatNumber } from '@/lib/format';
import { useErrorToast } from '@/lib/use-error-toast';
import { useCampaigns } from '@/api/campaigns';
import { useKommoAccounts } from '@/api/kommo-accounts';
import { dashboardStats, recentCampaigns } from './dashboard-stats';
import { TableHead } from '@/components/ui/table-head';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { useIsPhone } from '@/components/ui/use-media-query';
import { DashboardActivity } from './dashboard-activity';
import { usePending } from '../api/get-pending';

export function DashboardPage() {
  const campaigns = useCampaigns();
  const accounts = useKommoAccounts();
  useErrorToast(campaigns.error, 'Error al cargar las campañas');
  useErrorToast(accounts.error, 'Error al cargar las cuentas');
  const pending = usePending();
  const stats = dashboardStats(campaigns.data ?? [], accounts.data ?? []);
  // The server's count adds the deferred recipients waiting for their retry; the spec's sum until it answers.
  const pendingMessages = pending.data?.pending_messages ?? stats.pendingMessages;
  const deferred = pending.data?.deferred ?? 0;
  return (
    <div className="space-y-6">
      <PageHeader title="Dashboard" />
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard title="Total Contactos" value={formatNumber(stats.totalContacts)} icon={<Users className="h-6 w-6" />} />
        <StatCard title="Campañas Activas" value={formatNumber(stats.activeCampaigns)} icon={<Send className="h-6 w-6" />} tone="green" />
        <StatCard title="Campañas Completadas" value={formatNumber(stats.completedCampaigns)} icon={<CheckCircle className="h-6 w-6" />} tone="purple" />
        <StatCard
          title="Mensajes Pendientes"
          value={formatNumber(pendingMessages)}
          icon={<Clock className="h-6 w-6" />}
          tone="yellow"
          testId="dashboard-pending"
          note={deferred > 0 ? `incluye ${formatNumber(deferred)} ${deferred === 1 ? 'diferido que espera' : 'diferidos que esperan'} su reintento` : undefined}
        />
      </div>
      <Card className="overflow-hidden">
        <div className="border-b border-gray-200 px-6 py-4">
          <h2 className="text-lg font-semibold text-gray-900">Campañas Recientes</h2>
        </div>
        {campaigns.isPending ? (
          <Spinner className="py-10" />
        ) : campaigns.isError ? (
          <EmptyState title={errorMessage(campaigns.error, 'Error al cargar las campañas')} />
        ) : !campaigns.data.length ? (
          <EmptyState title="No hay campañas creadas aún" />
        ) : (
          <RecentCampaignsTable campaigns={recentCampaigns(campaigns.data)} />
        )}
      </Card>
      <DashboardActivity />
    </div>
  );
}

function RecentCampaignsTable({ campaigns }: { campaigns: Campaign[] }) {
  const phone = useIsPhone();
  if (phone)
    return (
      <StackedList label="Campañas Recientes">
        {campaigns.map((c) => (
          <StackedItem
            key={c.id}
            title={
              <Link to={`/campaigns/${c.id}`} className="text-gray-900 hover:text-blue-700">
                {c.name}
              </Link>
            }
            aside={<CampaignStatusBadge status={c.status} />}
            fields={[
              {
                label: 'Progreso',
                wide: true,
                value: (
                  <div className="flex items-center gap-3">
                    <CampaignProgressBar campaign={c} label={`Progreso de ${c.name}`} />
                    <span className="text-xs whitespace-nowrap text-gray-600">
                      {formatNumber(c.messages_sent)}/{formatNumber(c.total_recipients)}
                    </span>
                  </div>
                ),
              },
              { label: 'Fecha', value: formatDate(c.created_at) },
            ]}
          />
        ))}
      </StackedList>
    );
  return (
    <TableScroll label="Campañas Recientes">
      <table className="min-w-full divide-y divide-gray-200">
        <TableHead columns={['Nombre', 'Estado', 'Progreso', 'Fecha']} />
        <tbody className="divide-y divide-gray-200 bg-white">
          {campaigns.map((c) => (
            <tr key={c.id}>
              <td className="px-6 py-4 text-sm font-medium whitespace-nowrap">
                <Link to={`/campaigns/${c.id}`} className="text-gray-900 hover:text-blue-700">
                  {c.name}
                </Link>
              </td>
              <td className="px-6 py-4 whitespace-nowrap">
                <CampaignStatusBadge status={c.status} />
              </td>
              <td className="px-6 py-4 whitespace-nowrap">
                <div className="flex w-48 items-center gap-3">
                  <CampaignProgressBar campaign={c} label={`Progreso de ${c.name}`} />
                  <span className="text-xs whitespace-nowrap text-gray-600">
                    {formatNumber(c.messages_sent)}/{formatNumber(c.total_recipients)}
                  </span>
                </div>
              </td>
              <td className="px-6 py-4 text-sm whitespace-nowrap text-gray-500">{formatDate(c.created_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
