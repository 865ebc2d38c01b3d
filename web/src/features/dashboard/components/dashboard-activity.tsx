import { lazy, Suspense } from 'react';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useActivity } from '../api/get-activity';

/** The drawing library is loaded only when the charts are shown (its own chunk). */
const DashboardActivityView = lazy(() => import('./dashboard-activity-view'));

/** The dashboard's activity: the last 30 days, volumes and rates per WhatsApp number. */
export function DashboardActivity() {
  const activity = useActivity();
  if (activity.isError)
    return (
      <Card>
        <EmptyState title={errorMessage(activity.error, 'No se pudo cargar la actividad de los últimos 30 días')} />
      </Card>
    );
  const loading = <Spinner className="py-16" label="Cargando actividad..." />;
  if (activity.isPending) return loading;
  return (
    <Suspense fallback={loading}>
      <DashboardActivityView activity={activity.data} />
    </Suspense>
  );
}
