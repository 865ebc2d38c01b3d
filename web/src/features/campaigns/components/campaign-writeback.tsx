import type { Campaign } from '@masivo/contract/campaigns';
import { writebackProgressLabel } from '@masivo/contract/kommo-writeback';
import { Card } from '@/components/ui/card';
import { ProgressBar } from '@/components/ui/progress-bar';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useCampaignWriteback } from '@/api/kommo-writeback';

/**
 * The campaign's write-back to Kommo: "Kommo: 1.200 / 5.000 contactos actualizados", the
 * contacts that failed and why, and Kommo's refusal while it is retried. Nothing when the
 * campaign's Kommo account does not write back.
 */
export function CampaignWriteback({ campaign }: { campaign: Campaign }) {
  const q = useCampaignWriteback(campaign.id, campaign.status);
  const w = q.data;
  if (!w || w.state === 'off') return null;
  const percent = w.total > 0 ? ((w.done + w.failed) / w.total) * 100 : 0;
  return (
    <Card className="p-6" data-testid="campaign-writeback">
      <h2 className="mb-3 text-lg font-semibold text-gray-900">Resultados en Kommo</h2>
      {w.state === 'waiting' ? (
        <p className="text-sm text-gray-600">
          {campaign.audience_kind === 'automatic'
            ? 'Kommo: cada mensaje deja su nota en el contacto cuando se entrega, falla o pasan 10 minutos sin respuesta de Meta.'
            : 'Kommo: los resultados se escribirán en los contactos cuando la campaña termine.'}
        </p>
      ) : (
        <div className="space-y-3">
          <p role="status" className="text-sm font-medium text-gray-800">
            {writebackProgressLabel(w.done, w.total)}
            {w.state === 'done' && w.failed === 0 && <span className="ml-2 font-normal text-green-700">· completado</span>}
          </p>
          <ProgressBar
            value={w.total > 0 ? (w.done / w.total) * 100 : 0}
            label="Resultados escritos en Kommo"
            valueText={`${formatNumber(w.done)} de ${formatNumber(w.total)}`}
            barClassName="bg-green-600"
            segments={[{ value: percent - (w.total > 0 ? (w.done / w.total) * 100 : 0), className: 'bg-red-500' }]}
          />
          {(w.late_done > 0 || w.late_pending > 0) && (
            <p className="text-xs text-gray-600">
              Respuestas y bajas posteriores: {formatNumber(w.late_done)} escritas
              {w.late_pending > 0 ? `, ${formatNumber(w.late_pending)} pendientes` : ''}.
            </p>
          )}
          {w.state === 'paused' && (
            <p role="status" className="rounded-md border border-gray-300 bg-gray-50 px-3 py-2 text-sm text-gray-700">
              La escritura en Kommo está desactivada en la cuenta: los contactos pendientes se escriben al volver a activarla.
            </p>
          )}
          {w.last_error && (
            <p role="alert" className="rounded-md border border-yellow-300 bg-yellow-50 px-3 py-2 text-sm text-yellow-800">
              <span className="font-medium">Kommo falló:</span> {w.last_error}
              {w.retry_at ? ` Se reintenta el ${formatDateTime(w.retry_at)}.` : ''} La campaña no se ve afectada.
            </p>
          )}
          {w.failed > 0 && (
            <div className="text-sm text-red-800">
              <p className="font-medium">{formatNumber(w.failed)} {w.failed === 1 ? 'contacto no se pudo actualizar' : 'contactos no se pudieron actualizar'}:</p>
              <ul className="mt-1 list-disc space-y-1 pl-5">
                {w.failures.map((f) => (
                  <li key={f.reason}>
                    {f.reason} ({formatNumber(f.count)})
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      )}
    </Card>
  );
}
