import type { DashboardActivity } from '@masivo/contract/stats';
import { useId, useState } from 'react';
import { Bar, CartesianGrid, ComposedChart, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatPercent, SERIES_COLORS } from '@/components/charts/chart-format';
import { ChartSection, ChartTable } from '@/components/charts/chart-section';
import { DataAge } from '@/components/charts/data-age';
import { formatNumber } from '@/lib/format';
import { activitySeries, activityTotals, ALL_NUMBERS, numberKey } from './activity-series';

/** A local day `YYYY-MM-DD` as "dd/mm". */
const day = (d: string) => `${d.slice(8, 10)}/${d.slice(5, 7)}`;

/** Loaded lazily by dashboard-activity.tsx: everything here that draws comes from the chart library. */
export default function DashboardActivityView({ activity }: { activity: DashboardActivity }) {
  const [selected, setSelected] = useState(ALL_NUMBERS);
  const selectId = useId();
  const points = activitySeries(activity, selected);
  const totals = activityTotals(points);
  const which =
    selected === ALL_NUMBERS ? 'todos los números' : (activity.numbers.find((n) => numberKey(n.whatsapp_account_id) === selected)?.name ?? '');
  const zone = activity.time_zone === 'UTC' ? 'UTC' : `hora de ${activity.time_zone}`;

  const picker = (
    <div className="flex w-full flex-col gap-1 sm:w-auto">
      <label htmlFor={selectId} className="text-sm font-medium text-gray-700">
        Número de WhatsApp
      </label>
      <select
        id={selectId}
        value={selected}
        onChange={(e) => setSelected(e.target.value)}
        className="block min-h-11 w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500 sm:min-h-0 sm:w-64"
      >
        <option value={ALL_NUMBERS}>Todos los números</option>
        {activity.numbers.map((n) => (
          <option key={numberKey(n.whatsapp_account_id)} value={numberKey(n.whatsapp_account_id)}>
            {n.phone ? `${n.name} (${n.phone})` : n.name}
          </option>
        ))}
      </select>
    </div>
  );

  const volumeTitle = `Mensajes por día, últimos ${activity.days} días`;
  const rateTitle = 'Tasas de entrega y lectura por día';
  const volumeSummary = totals.sent || totals.failed
    ? `Del ${day(activity.from)} al ${day(activity.to)} (${zone}), ${which}: ${formatNumber(totals.sent)} enviados, ${formatNumber(totals.delivered)} entregados, ${formatNumber(
        totals.read,
      )} leídos y ${formatNumber(totals.failed)} fallidos.`
    : `Sin envíos del ${day(activity.from)} al ${day(activity.to)} en ${which}.`;
  const rateSummary = totals.sent
    ? `Tasa de entrega (entregados / enviados): ${formatPercent(totals.delivery_rate)}; tasa de lectura (leídos / entregados): ${formatPercent(
        totals.read_rate,
      )}. Cada día cuenta los mensajes enviados ese día.`
    : 'Sin envíos, no hay tasas que mostrar.';

  return (
    <div className="space-y-6" data-testid="dashboard-activity">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h2 className="text-lg font-semibold text-gray-900">Actividad de los últimos {activity.days} días</h2>
          <DataAge foldedAt={activity.folded_at} />
        </div>
        {picker}
      </div>
      <div className="grid grid-cols-1 gap-6 xl:grid-cols-2">
        <ChartSection
          title={volumeTitle}
          summary={volumeSummary}
          testId="chart-volumes"
          headingLevel={3}
          table={
            <ChartTable
              caption={`${volumeTitle}, ${which}`}
              columns={['Día', 'Enviados', 'Entregados', 'Leídos', 'Fallidos']}
              rows={points.map((p) => [day(p.day), formatNumber(p.sent), formatNumber(p.delivered), formatNumber(p.read), formatNumber(p.failed)])}
            />
          }
        >
          <ResponsiveContainer width="100%" height="100%">
            <ComposedChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
              <XAxis dataKey="day" tickFormatter={day} minTickGap={16} tick={{ fontSize: 12 }} />
              <YAxis allowDecimals={false} width={48} tick={{ fontSize: 12 }} />
              <Tooltip labelFormatter={(d) => day(String(d))} formatter={(v) => formatNumber(Number(v))} />
              <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
              {/* Bars: what left that day (sent, failed); lines: how many of those sends arrived and were read. */}
              <Bar dataKey="sent" name="Enviados" stackId="day" fill={SERIES_COLORS.sent} maxBarSize={24} isAnimationActive={false} />
              <Bar dataKey="failed" name="Fallidos" stackId="day" fill={SERIES_COLORS.failed} maxBarSize={24} isAnimationActive={false} />
              <Line type="linear" dataKey="delivered" name="Entregados" stroke={SERIES_COLORS.delivered} dot={false} strokeWidth={2} isAnimationActive={false} />
              <Line type="linear" dataKey="read" name="Leídos" stroke={SERIES_COLORS.read} dot={false} strokeWidth={2} isAnimationActive={false} />
            </ComposedChart>
          </ResponsiveContainer>
        </ChartSection>
        <ChartSection
          title={rateTitle}
          summary={rateSummary}
          testId="chart-rates"
          headingLevel={3}
          table={
            <ChartTable
              caption={`${rateTitle}, ${which}`}
              columns={['Día', 'Tasa de entrega', 'Tasa de lectura']}
              rows={points.map((p) => [day(p.day), formatPercent(p.delivery_rate), formatPercent(p.read_rate)])}
            />
          }
        >
          <ResponsiveContainer width="100%" height="100%">
            <LineChart data={points} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
              <CartesianGrid strokeDasharray="3 3" stroke="#e5e7eb" />
              <XAxis dataKey="day" tickFormatter={day} minTickGap={16} tick={{ fontSize: 12 }} />
              <YAxis domain={[0, 1]} tickFormatter={(v: number) => `${Math.round(v * 100)} %`} width={48} tick={{ fontSize: 12 }} />
              <Tooltip labelFormatter={(d) => day(String(d))} formatter={(v) => formatPercent(typeof v === 'number' ? v : null)} />
              <Legend wrapperStyle={{ fontSize: 12 }} itemSorter={null} />
              <Line type="linear" dataKey="delivery_rate" name="Tasa de entrega" stroke={SERIES_COLORS.delivered} strokeWidth={2} connectNulls isAnimationActive={false} />
              <Line type="linear" dataKey="read_rate" name="Tasa de lectura" stroke={SERIES_COLORS.read} strokeWidth={2} connectNulls isAnimationActive={false} />
            </LineChart>
          </ResponsiveContainer>
        </ChartSection>
      </div>
    </div>
  );
}
