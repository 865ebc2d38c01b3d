import type { Campaign } from '@masivo/contract/campaigns';
import { SPLIT_NO_WINNER_LABELS, type SplitArm, type SplitTestView } from '@masivo/contract/split-test';
import { Card } from '@/components/ui/card';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { TableHead } from '@/components/ui/table-head';
import { useIsPhone } from '@/components/ui/use-media-query';
import { formatDateTime, formatNumber } from '@/lib/format';
import { usd } from './preflight-panel';
import { lazy, Suspense } from 'react';
import { Spinner } from '@/components/ui/spinner';

/** The arms' funnels draw with the chart library, loaded only when a split test is shown. */
const SplitTestArmCharts = lazy(() => import('./split-test-arm-charts'));

/** Meta's block reasons (TOP_BLOCK_REASON), in Spanish. */
const BLOCK_REASON_LABELS: Record<string, string> = {
  NO_LONGER_NEEDED: 'ya no lo necesita',
  NO_REASON: 'sin motivo',
  NO_REASON_GIVEN: 'sin motivo indicado',
  NO_SIGN_UP: 'no se suscribió',
  OFFENSIVE_MESSAGES: 'mensajes ofensivos',
  OTHER: 'otro',
  OTP_DID_NOT_REQUEST: 'código no solicitado',
  SPAM: 'spam',
  UNKNOWN_BLOCK_REASON: 'motivo desconocido',
};

const pct = (v: number | null) => (v === null ? '-' : `${(v * 100).toLocaleString('es-ES', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} %`);
const interval = (a: SplitArm) => (a.ci_low === null || a.ci_high === null ? '-' : `${pct(a.ci_low)} – ${pct(a.ci_high)}`);

/** The wait as the operator set it: "4 h", "30 min", "1 h 30 min". */
function waitLabel(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.round((seconds % 3600) / 60);
  if (h && m) return `${h} h ${m} min`;
  if (h) return `${h} h`;
  return m ? `${m} min` : `${seconds} s`;
}

/** What happened to the rest of the audience after the decision. */
function restNote(t: SplitTestView): string {
  const r = t.result;
  if (!r) return '';
  if (r.outcome === 'stopped') return 'La campaña se detuvo: el resto del público no recibió ningún mensaje.';
  if (r.outcome === 'best') return `El resto del público recibe la mejor variante (${r.winner}).`;
  return `El resto del público recibe la variante ${r.winner}.`;
}

/**
 * "Prueba A/B" on the campaign's detail: the settings, each arm's counts with its metric's rate
 * and 95 % interval, and the result ("Ganó B (+3,1 pts, p = 0,004)" or "Sin diferencia
 * significativa") with what the rest of the audience got.
 */
export function SplitTestCard({ campaign }: { campaign: Campaign }) {
  const t = campaign.split_test;
  const phone = useIsPhone();
  if (!t) return null;
  const metricNote = t.ab_test.metric === 'click' && t.clicks_unavailable ? ' (no disponible: Meta no informa clics de estos envíos, cuentan 0)' : '';
  // Meta's template comparison (two arms past 1,000 sends, asked once the campaign completed).
  const meta = t.result?.meta_compare ?? null;
  const blockRates = meta?.available === true;
  const blocks = (a: SplitArm) => {
    const m = meta?.arms.find((x) => x.variant === a.variant);
    if (!m) return '-';
    return `${m.fewer_blocks ? 'Menos bloqueos' : 'Más bloqueos'}${m.top_block_reason ? ` (${BLOCK_REASON_LABELS[m.top_block_reason] ?? m.top_block_reason})` : ''}`;
  };
  return (
    <Card className="p-4 sm:p-6" data-testid="split-test-card">
      <h2 className="mb-1 text-lg font-semibold text-gray-900">Prueba A/B</h2>
      <p className="mb-4 text-sm text-gray-600">
        {t.arms.length} variantes · porción de prueba {pct(t.ab_test.share).replace(',0 %', ' %')} · métrica: {t.metric_label.toLowerCase()}
        {metricNote} · espera {waitLabel(t.ab_test.wait_seconds)} · sin ganador: {SPLIT_NO_WINNER_LABELS[t.ab_test.no_winner].toLowerCase()}
      </p>
      <div role="status" aria-live="polite" className="mb-4 rounded-md border border-gray-200 bg-gray-50 px-4 py-3 text-sm" data-testid="split-test-result">
        {t.result ? (
          <>
            <p className="text-base font-semibold text-gray-900">{t.result.summary}</p>
            {t.result.insufficient_sample && t.result.sample_note && (
              <p className="text-gray-700" data-testid="split-test-sample">
                No se declara ganadora con una muestra tan chica: {t.result.sample_note}
              </p>
            )}
            {!t.result.significant && !t.result.insufficient_sample && t.result.p_value !== null && (
              <p className="text-gray-700">
                Mejor variante: {t.result.best} (p = {t.result.p_value.toLocaleString('es-ES', { maximumFractionDigits: 3 })}, se necesita p &lt; 0,05)
              </p>
            )}
            <p className="text-gray-700">{restNote(t)}</p>
            <p className="text-xs text-gray-500">Decidido el {formatDateTime(t.result.decided_at)} con los envíos de la porción de prueba.</p>
          </>
        ) : (
          <p className="text-gray-700">
            {t.decide_at ? `En prueba: la decisión se toma desde el ${formatDateTime(t.decide_at)}, cuando la porción de prueba se haya enviado.` : 'La prueba empieza al iniciar la campaña.'}
            {t.waiting > 0 && ` ${formatNumber(t.waiting)} destinatarios esperan a la variante ganadora.`}
          </p>
        )}
        {!t.result && t.decide_at && !t.sample.sufficient && t.sample.note && (
          <p className="mt-1 text-gray-700" data-testid="split-test-sample">
            Muestra insuficiente por ahora: {t.sample.note}
            {t.sample.extended_until
              ? ` La decisión espera hasta el ${formatDateTime(t.sample.extended_until)}; si la muestra no alcanza, se aplica «${SPLIT_NO_WINNER_LABELS[t.ab_test.no_winner]}».`
              : ` Si al decidir la muestra no alcanza, se aplica «${SPLIT_NO_WINNER_LABELS[t.ab_test.no_winner]}».`}
          </p>
        )}
      </div>
      {phone ? (
        <StackedList label="Variantes de la prueba A/B">
          {t.arms.map((a) => (
            <StackedItem
              key={a.variant}
              title={`Variante ${a.variant}${t.result?.winner === a.variant ? ' · ganadora' : ''}`}
              aside={<span className="text-sm font-semibold text-gray-900">{pct(a.rate)}</span>}
              fields={[
                { label: 'Plantilla', value: a.template_name, wide: true },
                { label: 'Destinatarios', value: formatNumber(a.recipients) },
                { label: 'Enviados', value: formatNumber(a.sent) },
                { label: 'Leídos', value: formatNumber(a.read) },
                { label: 'Respuestas', value: formatNumber(a.replied) },
                { label: 'Toques', value: formatNumber(a.tapped) },
                { label: 'Clics', value: a.clicked === null ? 'no disponible' : formatNumber(a.clicked) },
                { label: 'Costo (USD)', value: usd(a.cost) },
                { label: 'IC 95 %', value: interval(a), wide: true },
                ...(blockRates ? [{ label: 'Bloqueos (Meta)', value: blocks(a), wide: true }] : []),
              ]}
            />
          ))}
        </StackedList>
      ) : (
        <TableScroll label="Variantes de la prueba A/B">
          <table className="min-w-full divide-y divide-gray-200 text-sm">
            <TableHead
              columns={[
                'Variante',
                'Destinatarios',
                'Enviados',
                'Leídos',
                'Respuestas',
                'Toques',
                'Clics',
                'Costo (USD)',
                'Tasa',
                'IC 95 %',
                ...(blockRates ? ['Bloqueos (Meta)'] : []),
              ]}
              dense
              nowrap
            />
            <tbody className="divide-y divide-gray-200 bg-white">
              {t.arms.map((a) => (
                <tr key={a.variant} className={t.result?.winner === a.variant ? 'bg-green-50' : undefined}>
                  <th scope="row" className="px-4 py-3 text-left font-semibold whitespace-nowrap text-gray-900">
                    {a.variant}
                    {t.result?.winner === a.variant && <span className="ml-2 text-xs font-medium text-green-800">ganadora</span>}
                    <span className="block text-xs font-normal text-gray-600">{a.template_name}</span>
                  </th>
                  <td className="px-4 py-3 text-gray-700">{formatNumber(a.recipients)}</td>
                  <td className="px-4 py-3 text-gray-700">{formatNumber(a.sent)}</td>
                  <td className="px-4 py-3 text-gray-700">{formatNumber(a.read)}</td>
                  <td className="px-4 py-3 text-gray-700">{formatNumber(a.replied)}</td>
                  <td className="px-4 py-3 text-gray-700">{formatNumber(a.tapped)}</td>
                  <td className="px-4 py-3 whitespace-nowrap text-gray-700">{a.clicked === null ? 'no disponible' : formatNumber(a.clicked)}</td>
                  <td className="px-4 py-3 whitespace-nowrap text-gray-700">{usd(a.cost)}</td>
                  <td className="px-4 py-3 font-semibold whitespace-nowrap text-gray-900">{pct(a.rate)}</td>
                  <td className="px-4 py-3 whitespace-nowrap text-gray-700">{interval(a)}</td>
                  {blockRates && <td className="px-4 py-3 whitespace-nowrap text-gray-700">{blocks(a)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {t.arms.some((a) => a.sent > 0) && (
        <Suspense fallback={<Spinner className="py-8" label="Cargando gráficos de las variantes..." />}>
          <SplitTestArmCharts arms={t.arms} />
        </Suspense>
      )}
      {meta && !meta.available && meta.reason && <p className="mt-3 text-xs text-gray-500">Comparación de bloqueos de Meta: no disponible. {meta.reason}.</p>}
      <p className="mt-3 text-xs text-gray-500">
        La tasa es sobre los mensajes aceptados por Meta; la ganadora sale de una prueba z de dos proporciones al 95 %
        {t.arms.length > 2 ? ', cada variante contra la mejor con corrección de Bonferroni' : ''}. No se declara ganadora si alguna variante
        tiene menos de {t.sample.min_sends} envíos o menos de {t.sample.min_expected} éxitos (o fracasos) esperados con la tasa conjunta. Después de la decisión las cifras incluyen al resto del público.
      </p>
    </Card>
  );
}
