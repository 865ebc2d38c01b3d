import type { Campaign } from '@masivo/contract/campaigns';
import { MousePointerClick, RefreshCw } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useRefreshMetaClicks } from '../api/meta-clicks';

/**
 * The Marketing Messages API beside replies and taps: recipients per route, «Vencidos» (Meta
 * dropped them after the template's time-to-live), people who clicked (click webhooks) and
 * the clicks of Meta's template analytics; «no disponible» where Meta gives no clicks.
 */
export function CampaignMarketingCard({ campaign: c }: { campaign: Campaign }) {
  const refresh = useRefreshMetaClicks();
  const mm = c.marketing_messages;
  if (!mm || !c.started_at) return null;
  const routed = mm.by_route.marketing_messages + mm.by_route.messages;
  if (!routed && !mm.expired_count && !mm.clicks_available) return null;
  return (
    <Card className="p-6" data-testid="campaign-marketing">
      <h2 className="mb-4 flex items-center gap-2 text-lg font-semibold text-gray-900">
        <MousePointerClick className="h-5 w-5 text-blue-600" aria-hidden="true" />
        Clics y API de marketing
      </h2>
      <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-2">
        <div>
          <dt className="text-gray-600">Personas que hicieron clic</dt>
          <dd className="text-2xl font-semibold text-gray-900" data-testid="mm-clicked">
            {mm.clicks_available ? formatNumber(mm.clicked_count) : 'no disponible'}
          </dd>
        </div>
        <div>
          <dt className="text-gray-600">Clics según Meta (analíticas de la plantilla)</dt>
          <dd className="text-2xl font-semibold text-gray-900" data-testid="mm-analytics-clicks">
            {mm.analytics_clicks !== null ? formatNumber(mm.analytics_clicks) : 'no disponible'}
          </dd>
          {mm.analytics_clicks_at && <p className="text-xs text-gray-500">Leído {formatDateTime(mm.analytics_clicks_at)}; suma los envíos de la plantilla en esos días.</p>}
        </div>
        <div>
          <dt className="text-gray-600">Por la API de marketing</dt>
          <dd className="font-medium text-gray-900">{formatNumber(mm.by_route.marketing_messages)}</dd>
        </div>
        <div>
          <dt className="text-gray-600">Por Cloud API</dt>
          <dd className="font-medium text-gray-900">{formatNumber(mm.by_route.messages)}</dd>
        </div>
        <div>
          <dt className="text-gray-600">Vencidos</dt>
          <dd className="font-medium text-gray-900" data-testid="mm-expired">{formatNumber(mm.expired_count)}</dd>
        </div>
        {mm.expiry_label && (
          <div>
            <dt className="text-gray-600">Vencimiento</dt>
            <dd className="font-medium text-gray-900">{mm.expiry_label}</dd>
          </div>
        )}
      </dl>
      {!mm.clicks_available && (
        <p className="mt-3 text-xs text-gray-500">Meta no informa clics de esta cuenta: solo los da para envíos por la API de marketing o en sus analíticas de plantillas (no en la UE, el Reino Unido ni Japón).</p>
      )}
      <Button className="mt-4" size="sm" variant="secondary" onClick={() => refresh.mutate(c.id)} disabled={refresh.isPending}>
        <RefreshCw className={refresh.isPending ? 'h-4 w-4 motion-safe:animate-spin' : 'h-4 w-4'} /> Actualizar clics de Meta
      </Button>
    </Card>
  );
}
