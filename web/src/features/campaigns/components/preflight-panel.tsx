import type { ExclusionReason, Preflight } from '@masivo/contract/preflight';
import { Download, PlaneTakeoff } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime, formatNumber } from '@/lib/format';

export const usd = (n: number) => n.toLocaleString('es-ES', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });

export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min`;
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  return m ? `${h} h ${m} min` : `${h} h`;
}

export function budgetText(b: Preflight['budget']): string {
  if (b.daily_limit === null) return 'Límite diario de Meta desconocido';
  if (b.daily_limit < 0) return 'Límite diario de Meta: ilimitado';
  return `Quedan ${formatNumber(b.left)} de ${formatNumber(b.daily_limit)} destinatarios únicos hoy (24 h)`;
}

/** The estimated cost: the priced recipients' total, and how many have no rate. */
export function costText(p: Preflight): string {
  if (p.attempted === 0) return usd(0);
  if (p.cost.priced === 0) return 'sin tarifa';
  return `${usd(p.cost.total)}${p.cost.unpriced ? ` + ${formatNumber(p.cost.unpriced)} sin tarifa` : ''}`;
}

/**
 * The pre-flight: what will happen before "Crear Campaña" / "Iniciar": who is attempted, who is
 * not and why, Meta's daily budget, the ETA and the cost. A live region, so a screen reader
 * hears the new figures as the filters change.
 */
export function PreflightPanel({
  data,
  isLoading,
  isFetching,
  error,
  placeholder,
  matchedLabel = 'contactos que coinciden con los filtros',
  onDownloadExcluded,
}: {
  data: Preflight | undefined;
  isLoading: boolean;
  isFetching?: boolean;
  error?: Error | null;
  placeholder?: string;
  /** What `matched` counts: the filter's contacts, or a follow-up's fixed list. */
  matchedLabel?: string;
  /** Downloads the contacts behind one exclusion reason; each reason becomes a button when given. */
  onDownloadExcluded?: (reason: ExclusionReason) => Promise<void>;
}) {
  return (
    <section aria-labelledby="preflight-title" className="min-w-0 rounded-lg border border-gray-200 bg-white p-4" data-testid="preflight-panel">
      <h2 id="preflight-title" className="mb-3 flex items-center gap-2 text-base font-semibold text-gray-900">
        <PlaneTakeoff className="h-5 w-5 text-blue-600" aria-hidden="true" />
        Antes de enviar
        {isFetching && data && <span className="text-xs font-normal text-gray-600">actualizando...</span>}
      </h2>
      <div role="status" aria-live="polite" aria-atomic="true">
        {error ? (
          <p className="text-sm text-red-700">{error.message || 'Error al calcular el pre-vuelo'}</p>
        ) : !data ? (
          <p className="text-sm text-gray-600">{isLoading ? 'Calculando...' : placeholder ?? 'Completa la cuenta Kommo, la cuenta de WhatsApp y la plantilla.'}</p>
        ) : (
          <PreflightFigures p={data} matchedLabel={matchedLabel} onDownloadExcluded={onDownloadExcluded} />
        )}
      </div>
    </section>
  );
}

function PreflightFigures({
  p,
  matchedLabel,
  onDownloadExcluded,
}: {
  p: Preflight;
  matchedLabel: string;
  onDownloadExcluded?: (reason: ExclusionReason) => Promise<void>;
}) {
  const excluded = p.excluded.filter((e) => e.count > 0);
  return (
    <div className="space-y-3 text-sm text-gray-700">
      <p>
        <span className="text-2xl font-semibold text-gray-900" data-testid="preflight-attempted">
          {formatNumber(p.attempted)}
        </span>{' '}
        {p.attempted === 1 ? 'destinatario se intentará' : 'destinatarios se intentarán'}
        <span className="block text-xs text-gray-600">de {formatNumber(p.matched)} {matchedLabel}</span>
      </p>
      {excluded.length > 0 && (
        <div>
          <h3 className="font-medium text-gray-900">Excluidos</h3>
          <ul className="mt-1 max-w-md space-y-0.5" data-testid="preflight-excluded">
            {excluded.map((e) => (
              <li key={e.reason} className="flex items-center justify-between gap-4">
                <ExclusionLabel reason={e.reason} label={e.label} count={e.count} onDownload={onDownloadExcluded} />
                <span className="font-medium tabular-nums text-gray-900">{formatNumber(e.count)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {p.template_problem && <p className="text-red-700">Plantilla no apta: {p.template_problem}</p>}
      {p.frequency_cap && (
        <p className="text-xs text-gray-600">
          Tope de frecuencia: {p.frequency_cap.max_messages} mensajes de marketing cada {p.frequency_cap.days} días por contacto.
        </p>
      )}
      <dl className="grid grid-cols-1 gap-2 sm:grid-cols-2">
        <div>
          <dt className="text-xs text-gray-600">Límite diario</dt>
          <dd data-testid="preflight-budget">
            {budgetText(p.budget)}
            {p.budget.waves > 1 && <span className="block font-medium text-amber-800">Se enviará en {p.budget.waves} días</span>}
          </dd>
        </div>
        <div>
          <dt className="text-xs text-gray-600">Fin estimado</dt>
          <dd data-testid="preflight-eta">
            {p.attempted === 0 ? '—' : `${formatDateTime(p.eta.finish_at)} (${duration(p.eta.sending_seconds)} de envío a ${formatNumber(p.eta.rate_per_second)}/s)`}
          </dd>
        </div>
        <div className="sm:col-span-2">
          <dt className="text-xs text-gray-600">Costo estimado (Meta, USD)</dt>
          <dd data-testid="preflight-cost">{costText(p)}</dd>
        </div>
      </dl>
    </div>
  );
}

/** A reason's label; with `onDownload`, a button that downloads its contacts (name, phone as in Kommo, reason). */
function ExclusionLabel({
  reason,
  label,
  count,
  onDownload,
}: {
  reason: ExclusionReason;
  label: string;
  count: number;
  onDownload?: (reason: ExclusionReason) => Promise<void>;
}) {
  const [busy, setBusy] = useState(false);
  const text = label.charAt(0).toUpperCase() + label.slice(1);
  if (!onDownload) return <span>{text}</span>;
  const click = async () => {
    setBusy(true);
    try {
      await onDownload(reason);
    } catch (err) {
      toast.error(errorMessage(err, 'Error al descargar la lista'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button
      type="button"
      onClick={() => void click()}
      disabled={busy}
      aria-label={`Descargar la lista: ${text} (${formatNumber(count)} ${count === 1 ? 'contacto' : 'contactos'})`}
      className="tap-target inline-flex items-center gap-1 text-left text-blue-700 underline decoration-dotted underline-offset-2 hover:text-blue-900 disabled:text-gray-500"
    >
      {text}
      <Download className="h-3.5 w-3.5 shrink-0" aria-hidden="true" />
      {busy && <span className="text-xs text-gray-600">descargando...</span>}
    </button>
  );
}
