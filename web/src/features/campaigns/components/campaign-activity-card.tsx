import type { Campaign } from '@masivo/contract/campaigns';
import { ActorLabel, ChangesDetails, OutcomeLabel, actionLabel } from '@/components/activity/activity-entry-parts';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useCampaignActivity } from '../api/get-campaign-activity';

/** «Actividad»: the campaign's history, newest first: who created, started, paused it, and what the system did. */
export function CampaignActivityCard({ campaign }: { campaign: Campaign }) {
  const activity = useCampaignActivity(campaign.id, campaign.status);
  const entries = activity.data?.items ?? [];
  return (
    <Card className="p-6" data-testid="campaign-activity">
      <h2 className="mb-4 text-lg font-semibold text-gray-900">Actividad</h2>
      {activity.isLoading ? (
        <Spinner className="py-6" />
      ) : activity.isError ? (
        <p role="alert" className="text-sm text-red-600">
          {errorMessage(activity.error, 'Error al cargar la actividad')}
        </p>
      ) : entries.length === 0 ? (
        <p className="text-sm text-gray-500">Sin actividad registrada</p>
      ) : (
        <ol className="relative space-y-4 border-l border-gray-200 pl-5">
          {entries.map((e) => (
            <li key={e.id} className="text-sm">
              <span className="absolute -left-1.5 mt-1.5 h-3 w-3 rounded-full border border-white bg-gray-300" aria-hidden="true" />
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <span className="font-medium text-gray-900">{actionLabel(e)}</span>
                <time className="text-xs text-gray-500" dateTime={e.at}>
                  {formatDateTime(e.at)}
                </time>
              </div>
              <div className="mt-1 flex flex-wrap items-start gap-x-4 gap-y-1">
                <ActorLabel entry={e} />
                {e.outcome === 'denied' && <OutcomeLabel entry={e} />}
              </div>
              {typeof e.detail?.reason === 'string' && <p className="mt-1 text-xs text-gray-600">{e.detail.reason}</p>}
              <div className="mt-1">
                <ChangesDetails entry={e} />
              </div>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
