import type { Campaign, CampaignNumberProgress } from '@masivo/contract/campaigns';
import { Card } from '@/components/ui/card';
import { ProgressBar } from '@/components/ui/progress-bar';
import { formatNumber } from '@/lib/format';

/**
 * «Números de la campaña»: a campaign that sends from several numbers shows each
 * number's progress. A number that takes no sends (red quality, switched off, template copy not
 * approved) says why, and how many of its people wait for it: they keep their number.
 */
export function CampaignNumbersCard({ campaign }: { campaign: Campaign }) {
  const numbers = campaign.numbers;
  if (!numbers?.length) return null;
  const waiting = numbers.reduce((s, n) => s + n.waiting, 0);
  return (
    <Card className="p-4 sm:p-6">
      <h2 className="mb-1 text-lg font-semibold text-gray-900">Números de la campaña</h2>
      <p className="mb-4 text-sm text-gray-600">
        Cada persona recibe siempre desde el mismo número; cada número envía a su propio ritmo.
        {waiting > 0 && <span className="font-medium text-amber-800"> {formatNumber(waiting)} personas esperan a que su número vuelva a enviar.</span>}
      </p>
      <ul className="divide-y divide-gray-200" aria-label="Progreso por número">
        {numbers.map((n) => (
          <NumberRow key={n.whatsapp_account_id} n={n} />
        ))}
      </ul>
    </Card>
  );
}

function NumberRow({ n }: { n: CampaignNumberProgress }) {
  const done = n.assigned - n.pending;
  const pct = n.assigned ? Math.round((done / n.assigned) * 100) : 0;
  const title = `${n.name}${n.phone ? ` (${n.phone})` : ''}`;
  return (
    <li className="space-y-2 py-3" data-testid={`campaign-number-${n.whatsapp_account_id}`}>
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <span className="min-w-0 font-medium break-words text-gray-900">{title}</span>
        <span className="text-sm text-gray-600">{formatNumber(n.rate_per_second)} msg/s</span>
      </div>
      <ProgressBar value={pct} label={`Progreso de ${title}`} valueText={`${formatNumber(done)} de ${formatNumber(n.assigned)}`} />
      <dl className="grid grid-cols-2 gap-x-4 gap-y-1 text-sm sm:grid-cols-4">
        <Figure label="Asignados" value={n.assigned} />
        <Figure label="Enviados" value={n.sent} />
        <Figure label="Fallidos" value={n.failed} />
        <Figure label="Pendientes" value={n.pending} />
      </dl>
      {n.blocked_reason && (
        <p role="status" className="rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900">
          No envía: {n.blocked_reason}.{n.waiting > 0 ? ` ${formatNumber(n.waiting)} personas asignadas a este número esperan.` : ''}
        </p>
      )}
    </li>
  );
}

function Figure({ label, value }: { label: string; value: number }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-gray-500">{label}</dt>
      <dd className="text-gray-900">{formatNumber(value)}</dd>
    </div>
  );
}
