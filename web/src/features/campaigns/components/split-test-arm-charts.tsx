import type { SplitArm } from '@masivo/contract/split-test';
import { Bar, BarChart, CartesianGrid, Cell, LabelList, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatPercent, SERIES_COLORS } from '@/components/charts/chart-format';
import { ChartSection, ChartTable } from '@/components/charts/chart-section';
import { formatNumber } from '@/lib/format';

/** The steps of an arm's funnel, each a share of the arm's sent messages. */
const STEPS = [
  { key: 'sent', label: 'Enviados', color: SERIES_COLORS.sent },
  { key: 'delivered', label: 'Entregados', color: SERIES_COLORS.delivered },
  { key: 'read', label: 'Leídos', color: SERIES_COLORS.read },
  { key: 'replied', label: 'Respondieron', color: SERIES_COLORS.replied },
  { key: 'clicked', label: 'Clics', color: '#ea580c' },
] as const;

/**
 * Loaded lazily by split-test-card.tsx (the drawing library's chunk): one small funnel per arm of
 * a split test (sent, delivered, read, replied, clicks), with its summary and its data table, so
 * the arms are compared side by side. Clicks Meta does not report are "no disponible", not 0.
 */
export default function SplitTestArmCharts({ arms }: { arms: SplitArm[] }) {
  return (
    <div className="mt-4 grid grid-cols-1 gap-4 md:grid-cols-2" data-testid="split-test-arm-charts">
      {arms.map((a) => (
        <ArmFunnel key={a.variant} arm={a} />
      ))}
    </div>
  );
}

function ArmFunnel({ arm }: { arm: SplitArm }) {
  const base = arm.sent;
  const data = STEPS.map((s) => {
    const count = s.key === 'clicked' ? arm.clicked : arm[s.key];
    return { ...s, count: count ?? 0, available: count !== null, share: count !== null && base ? count / base : null };
  });
  const title = `Embudo de la variante ${arm.variant}`;
  const summary = base
    ? `De ${formatNumber(base)} enviados: ${data
        .slice(1)
        .map((d) => (d.available ? `${formatNumber(d.count)} ${d.label.toLowerCase()} (${formatPercent(d.share)})` : `${d.label.toLowerCase()} no disponible`))
        .join(', ')}.`
    : 'Esta variante no se envió todavía.';
  return (
    <ChartSection
      title={title}
      summary={
        <>
          <span className="block text-xs text-gray-500">{arm.template_name}</span>
          {summary}
        </>
      }
      testId={`split-arm-chart-${arm.variant}`}
      headingLevel={3}
      chartHeight={180}
      table={
        <ChartTable
          caption={title}
          columns={['Paso', 'Mensajes', '% de enviados']}
          rows={data.map((d) => [d.label, d.available ? formatNumber(d.count) : 'no disponible', d.available ? formatPercent(d.share) : '-'])}
        />
      }
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 64, bottom: 4, left: 4 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tick={{ fontSize: 11 }} />
          <YAxis type="category" dataKey="label" width={96} tick={{ fontSize: 11 }} />
          <Tooltip formatter={(v) => formatNumber(Number(v))} />
          <Bar dataKey="count" name="Mensajes" maxBarSize={22} isAnimationActive={false}>
            {data.map((d) => (
              <Cell key={d.key} fill={d.color} />
            ))}
            <LabelList dataKey="share" position="right" formatter={(v) => formatPercent(typeof v === 'number' ? v : null)} style={{ fontSize: 11, fill: '#374151' }} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </ChartSection>
  );
}
