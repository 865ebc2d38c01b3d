import type { Campaign } from '@masivo/contract/campaigns';
import { lazy, Suspense } from 'react';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useCampaignStats } from '../api/get-campaign-stats';

/** The drawing library is loaded only when a campaign's charts are shown (its own chunk). */
const CampaignChartsView = lazy(() => import('./campaign-charts-view'));

/** Charts: timeline, funnel and failures of a campaign that has started. */
export function CampaignCharts({ campaign }: { campaign: Campaign }) {
  if (!campaign.started_at) return null;
  return <StartedCampaignCharts campaign={campaign} />;
}

function StartedCampaignCharts({ campaign }: { campaign: Campaign }) {
  const stats = useCampaignStats(campaign);
  if (stats.isError)
    return (
      <Card>
        <EmptyState title={errorMessage(stats.error, 'No se pudieron cargar los gráficos de la campaña')} />
      </Card>
    );
  const loading = <Spinner className="py-16" label="Cargando gráficos..." />;
  if (stats.isPending) return loading;
  return (
    <Suspense fallback={loading}>
      <CampaignChartsView stats={stats.data} />
    </Suspense>
  );
}
