import { FUNNEL_LABELS, FUNNEL_STEPS, type CampaignStats, type FailureByCode, type StatsPoint } from '@masivo/contract/stats';
import { Bar, BarChart, CartesianGrid, Cell, LabelList, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { bucketLabel, formatPercent, SERIES_COLORS } from '@/components/charts/chart-format';
import { ChartSection, ChartTable } from '@/components/charts/chart-section';
import { DataAge } from '@/components/charts/data-age';
import { formatNumber, timeZoneLabel } from '@/lib/format';

/** Loaded lazily by campaign-charts.tsx: everything here that draws comes from the chart library. */
export default function CampaignChartsView({ stats }: { stats: CampaignStats }) {
  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2" data-testid="campaign-charts">
      <div className="lg:col-span-2">
        <DataAge foldedAt={stats.folded_at} />
      </div>
      <div className="lg:col-span-2">
        <TimelineChart stats={stats} />
      </div>
      <FunnelChart stats={stats} />
      <FailuresChart failures={stats.failures} />
    </div>
  );
}

const SERIES = [
  { key: 'sent', label: 'Enviados' },
  { key: 'delivered', label: 'Entregados' },
  { key: 'read', label: 'Leídos' },
] as const;

/** A bucket's start as the operator reads it: hour and minute, with the date when the span crosses days. */
function timeFormatter(points: StatsPoint[], bucketMinutes: number) {
  const sameDay = points.length > 0 && new Date(points[0]!.at).toDateString() === new Date(points[points.length - 1]!.at).toDateString();
  const day = new Intl.DateTimeFormat('es-ES', { day: '2-digit', month: '2-digit' });
  const hour = new Intl.DateTimeFormat('es-ES', { hour: '2-digit', minute: '2-digit' });
  const full = new Intl.DateTimeFormat('es-ES', { day: '2-digit', month: '2-digit', hour: '2-digit', minute: '2-digit' });
  return (at: string) => {
    const d = new Date(at);
    if (bucketMinutes >= 1440) return day.format(d);
    return sameDay ? hour.format(d) : full.format(d);
  };
}

function TimelineChart({ stats }: { stats: CampaignStats }) {
  const { timeline, bucket_minutes } = stats;
  const title = `Envíos, entregas y lecturas ${bucketLabel(bucket_minutes)} (${timeZoneLabel(timeline[0] ? new Date(timeline[0].at) : new Date())})`;
  const format = timeFormatter(timeline, bucket_minutes);
  const total = (k: (typeof SERIES)[number]['key']) => timeline.reduce((s, p) => s + p[k], 0);
  const peak = timeline.reduce<StatsPoint | null>((best, p) => (!best || p.sent > best.sent ? p : best), null);
  const summary = timeline.length
    ? `Desde ${format(timeline[0]!.at)} hasta ${format(timeline[timeline.length - 1]!.at)}: ${formatNumber(total('sent'))} enviados, ${formatNumber(
        total('delivered'),
      )} entregados y ${formatNumber(total('read'))} leídos${peak && peak.sent ? `; el máximo fue de ${formatNumber(peak.sent)} envíos (${format(peak.at)})` : ''}.`
    : 'Todavía no hay envíos, entregas ni lecturas.';
  return (
    <ChartSection
      title={title}
      summary={summary}
      testId="chart-timeline"
      table={
        <ChartTable
          caption={title}
          columns={['Desde', 'Enviados', 'Entregados', 'Leídos']}
          rows={timeline.map((p) => [format(p.at), formatNumber(p.sent), formatNumber(p.delivered), formatNumber(p.read)])}
        />
      }
    >
      {timeline.length > 0 && (
        <ResponsiveContainer width="100%" height="100%">
          <LineChart data={timeline} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
            <XAxis dataKey="at" tickFormatter={format} minTickGap={24} tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} width={48} tick={{ fontSize: 12 }} />
            <Tooltip labelFormatter={(at) => format(String(at))} formatter={(v) => formatNumber(Number(v))} />
            <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
            {SERIES.map((s) => (
              <Line
                key={s.key}
                type="linear"
                dataKey={s.key}
                name={s.label}
                stroke={SERIES_COLORS[s.key]}
                dot={timeline.length <= 40}
                strokeWidth={2}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      )}
    </ChartSection>
  );
}

function FunnelChart({ stats }: { stats: CampaignStats }) {
  const { funnel } = stats;
  const base = funnel.attempted;
  const share = (n: number) => (base ? n / base : null);
  const data = FUNNEL_STEPS.map((step) => ({ step, label: FUNNEL_LABELS[step], count: funnel[step], share: share(funnel[step]) }));
  const title = 'Embudo: de intentados a respondieron';
  const summary = base
    ? `De ${formatNumber(base)} intentados: ${data
        .slice(1)
        .map((d) => `${formatNumber(d.count)} ${d.label.toLowerCase()} (${formatPercent(d.share)})`)
        .join(', ')}.`
    : 'Ningún destinatario se intentó todavía.';
  return (
    <ChartSection
      title={title}
      summary={summary}
      testId="chart-funnel"
      table={
        <ChartTable
          caption={title}
          columns={['Paso', 'Destinatarios', '% de intentados']}
          rows={data.map((d) => [d.label, formatNumber(d.count), formatPercent(d.share)])}
        />
      }
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 72, bottom: 4, left: 4 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 12 }} />
          <YAxis type="category" dataKey="label" width={96} tick={{ fontSize: 12 }} />
          <Tooltip formatter={(v) => formatNumber(Number(v))} />
          <Bar dataKey="count" name="Destinatarios" maxBarSize={32} isAnimationActive={false}>
            {data.map((d) => (
              <Cell key={d.step} fill={SERIES_COLORS[d.step]} />
            ))}
            <LabelList dataKey="share" position="right" formatter={(v) => formatPercent(typeof v === 'number' ? v : null)} style={{ fontSize: 12, fill: '#374151' }} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </ChartSection>
  );
}

const codeLabel = (f: FailureByCode) => (f.code === null ? 'Sin código' : String(f.code));

function FailuresChart({ failures }: { failures: FailureByCode[] }) {
  const title = 'Fallos por código de error de Meta';
  const total = failures.reduce((s, f) => s + f.count, 0);
  const data = failures.map((f) => ({ ...f, label: codeLabel(f) }));
  const summary = total ? (
    <>
      {formatNumber(total)} {total === 1 ? 'destinatario falló' : 'destinatarios fallaron'}:
      <ul className="mt-2 space-y-1" data-testid="failure-codes">
        {failures.map((f) => (
          <li key={codeLabel(f)} className="flex gap-2">
            <span className="font-mono text-xs leading-5 text-gray-900">{codeLabel(f)}</span>
            <span className="flex-1">{f.description}</span>
            <span className="font-medium text-gray-900 tabular-nums">{formatNumber(f.count)}</span>
          </li>
        ))}
      </ul>
    </>
  ) : (
    'Ningún envío falló.'
  );
  return (
    <ChartSection
      title={title}
      summary={summary}
      testId="chart-failures"
      chartHeight={total ? 80 + 44 * failures.length : 0}
      table={
        <ChartTable
          caption={title}
          columns={['Código', 'Descripción', 'Destinatarios']}
          rows={failures.map((f) => [codeLabel(f), f.description, formatNumber(f.count)])}
        />
      }
    >
      {total > 0 && (
        <ResponsiveContainer width="100%" height="100%">
          <BarChart data={data} layout="vertical" margin={{ top: 4, right: 40, bottom: 4, left: 4 }}>
            <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" horizontal={false} />
            <XAxis type="number" allowDecimals={false} tick={{ fontSize: 12 }} />
            <YAxis type="category" dataKey="label" width={80} tick={{ fontSize: 12 }} />
            <Tooltip
              formatter={(v) => formatNumber(Number(v))}
              labelFormatter={(_, payload) => {
                const f = payload?.[0]?.payload as FailureByCode | undefined;
                return f ? `${codeLabel(f)}: ${f.description}` : '';
              }}
            />
            <Bar dataKey="count" name="Destinatarios" fill={SERIES_COLORS.failed} maxBarSize={28} isAnimationActive={false}>
              <LabelList dataKey="count" position="right" formatter={(v) => formatNumber(Number(v))} style={{ fontSize: 12, fill: '#374151' }} />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      )}
    </ChartSection>
  );
}
