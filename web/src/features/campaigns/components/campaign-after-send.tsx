import {
  PRICING_CATEGORY_LABELS,
  PRICING_TYPE_LABELS,
  type Campaign,
  type CampaignCost,
  type CampaignReplies,
  type CostLine,
} from '@masivo/contract/campaigns';
import { MessageCircleReply, Receipt } from 'lucide-react';
import { DataAge } from '@/components/charts/data-age';
import { Card } from '@/components/ui/card';
import { formatNumber } from '@/lib/format';

const usd = (n: number) => n.toLocaleString('es-ES', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });
const percent = (rate: number) => rate.toLocaleString('es-ES', { style: 'percent', maximumFractionDigits: 1 });

/**
 * What happened after the send: the "Respuestas" card (who replied, the rate, the
 * quick-reply taps per button) and the real cost beside the pre-flight's estimate. Shown once
 * the campaign has started.
 */
export function CampaignAfterSend({ campaign: c }: { campaign: Campaign }) {
  if (!c.started_at || (!c.replies && !c.actual_cost)) return null;
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      {c.replies && <RepliesCard replies={c.replies} />}
      {c.actual_cost && <CostCard cost={c.actual_cost} />}
    </div>
  );
}

function RepliesCard({ replies: r }: { replies: CampaignReplies }) {
  return (
    <Card className="p-6" data-testid="campaign-replies">
      <h2 id="replies-title" className="mb-4 flex items-center gap-2 text-lg font-semibold text-gray-900">
        <MessageCircleReply className="h-5 w-5 text-blue-600" aria-hidden="true" />
        Respuestas
      </h2>
      <p className="text-sm text-gray-600">
        <span className="text-2xl font-semibold text-gray-900" data-testid="replies-count">
          Respondieron {formatNumber(r.replied)}
        </span>{' '}
        <span className="text-base font-medium text-gray-900">({percent(r.rate)})</span>
      </p>
      <p className="mt-1 text-sm text-gray-600">de {formatNumber(r.accepted)} mensajes aceptados por Meta</p>
      <h3 className="mt-5 mb-2 text-sm font-medium text-gray-900">Toques en botones de respuesta rápida</h3>
      {r.taps.length === 0 ? (
        <p className="text-sm text-gray-600">Nadie tocó un botón todavía.</p>
      ) : (
        <ul className="divide-y divide-gray-100 text-sm" aria-label="Toques por botón">
          {r.taps.map((t) => (
            <li key={t.button} className="flex flex-wrap items-baseline justify-between gap-2 py-2">
              <span className="font-medium text-gray-900">{t.button}</span>
              <span className="text-gray-700">
                {formatNumber(t.taps)} {t.taps === 1 ? 'toque' : 'toques'} · {formatNumber(t.recipients)} {t.recipients === 1 ? 'persona' : 'personas'}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

const categoryLabel = (c: string | null) => (c ? (PRICING_CATEGORY_LABELS[c] ?? c) : 'Sin datos de cobro');

function lineDetail(l: CostLine): string {
  if (l.status === 'priced') return usd(l.total ?? 0);
  if (l.status === 'free') return usd(0);
  if (l.status === 'no_rate') return 'sin tarifa';
  if (l.model?.toUpperCase() === 'CBP') return 'modelo por conversación: sin precio por mensaje';
  return l.category || l.type || l.model ? 'Meta no informó el tipo' : 'Meta no informó el cobro';
}

const countryNames = new Intl.DisplayNames(['es'], { type: 'region' });
/** "Argentina" for AR; the code itself when the browser does not know it. */
function countryName(code: string): string {
  try {
    return countryNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** "Marketing · AR · con cargo": the same category costs differently per country, so each line names it. */
function lineTitle(l: CostLine): string {
  const type = l.type ? (PRICING_TYPE_LABELS[l.type] ?? l.type) : null;
  const lowered = type ? type.charAt(0).toLowerCase() + type.slice(1) : null;
  return [categoryLabel(l.category), l.country ?? 'país desconocido', lowered].filter(Boolean).join(' · ');
}

function CostCard({ cost }: { cost: CampaignCost }) {
  const apart = cost.no_rate + cost.unpriceable;
  return (
    <Card className="p-6" data-testid="campaign-cost">
      <h2 className="mb-4 flex items-center gap-2 text-lg font-semibold text-gray-900">
        <Receipt className="h-5 w-5 text-blue-600" aria-hidden="true" />
        Costo real
      </h2>
      {/* Read from the rollups a background job folds every few seconds: how old they are. */}
      {cost.as_of && (
        <div className="-mt-3 mb-3">
          <DataAge foldedAt={cost.as_of} />
        </div>
      )}
      <dl className="grid grid-cols-1 gap-3 text-sm sm:grid-cols-2">
        <div className="rounded-md bg-gray-50 px-3 py-2">
          <dt className="text-xs text-gray-600">Real (mensajes entregados, USD)</dt>
          <dd className="text-lg font-semibold text-gray-900" data-testid="cost-actual">
            {usd(cost.total)}
            {cost.no_rate > 0 && <span className="text-sm font-normal text-gray-700"> + {formatNumber(cost.no_rate)} sin tarifa</span>}
          </dd>
        </div>
        <div className="rounded-md bg-gray-50 px-3 py-2">
          <dt className="text-xs text-gray-600">Estimado antes de enviar (USD)</dt>
          <dd className="text-lg font-semibold text-gray-900" data-testid="cost-estimate">
            {cost.estimate ? (
              <>
                {usd(cost.estimate.total)}
                {cost.estimate.unpriced > 0 && <span className="text-sm font-normal text-gray-700"> + {formatNumber(cost.estimate.unpriced)} sin tarifa</span>}
              </>
            ) : (
              '-'
            )}
          </dd>
        </div>
      </dl>
      {cost.lines.length === 0 ? (
        <p className="mt-4 text-sm text-gray-600">Todavía no hay mensajes entregados.</p>
      ) : (
        <ul className="mt-4 divide-y divide-gray-100 text-sm" aria-label="Costo por categoría, país y tipo">
          {cost.lines.map((l) => (
            <li key={`${l.category}|${l.country}|${l.type}|${l.model}|${l.status}`} className="flex flex-wrap items-baseline justify-between gap-2 py-2">
              <span className="text-gray-900" title={l.country ? countryName(l.country) : undefined}>
                {lineTitle(l)} <span className="text-gray-600">· {formatNumber(l.count)}</span>
              </span>
              <span className={l.status === 'priced' || l.status === 'free' ? 'font-medium text-gray-900' : 'text-amber-800'}>{lineDetail(l)}</span>
            </li>
          ))}
        </ul>
      )}
      {apart > 0 && (
        <p className="mt-3 text-xs text-gray-600">
          {formatNumber(apart)} {apart === 1 ? 'mensaje no entra' : 'mensajes no entran'} en el total: sin tarifa en tu tabla de tarifas o sin el cobro
          informado por Meta. No se estiman.
        </p>
      )}
    </Card>
  );
}
