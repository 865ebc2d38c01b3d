import type { Campaign } from '@masivo/contract/campaigns';
import { CAN_PAUSE } from '@masivo/contract/campaigns';
import { Pause, Play, Plus, Send } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { CampaignProgressBar, CampaignStatusBadge, campaignStatusOf, completedSummary } from '@/components/campaign-status';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { formatDate, formatNumber } from '@/lib/format';
import { useCampaigns } from '@/api/campaigns';
import { usePauseCampaign } from '../api/pause-campaign';
import { TableHead } from '@/components/ui/table-head';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { useIsPhone } from '@/components/ui/use-media-query';
import { CampaignLimitNote } from '@/components/campaign-limit-note';
import { FrequencyCapCard } from './frequency-cap-card';
import { CampaignHoursNote } from '@/components/campaign-hours-note';
import { StartCampaignDialog } from './start-campaign-dialog';
import { Can } from '@/lib/use-member';
import { maySendDirectly } from '../api/approvals';
import { useMeQuery } from '@/lib/use-member';

export function CampaignsPage() {
  const campaigns = useCampaigns();
  return (
    <div>
      <PageHeader
        title="Campañas"
        actions={
          <Can permission="campaigns.edit">
            <Link to="/campaigns/new" className="inline-flex items-center gap-2 rounded-md max-sm:min-h-11 bg-blue-600 px-4 py-2 text-sm font-medium text-white hover:bg-blue-700">
              <Plus className="h-4 w-4" />
              Nueva Campaña
            </Link>
          </Can>
        }
      />
      <Card className="overflow-hidden">
        {campaigns.isPending ? (
          <Spinner className="py-12" />
        ) : campaigns.isError ? (
          <EmptyState title={campaigns.error.message || 'Error al cargar las campañas'} />
        ) : campaigns.data.length === 0 ? (
          <EmptyState icon={<Send className="h-12 w-12" />} title="No tienes campañas creadas" />
        ) : (
          <CampaignsTable campaigns={campaigns.data} />
        )}
      </Card>
      <FrequencyCapCard />
    </div>
  );
}

function CampaignsTable({ campaigns }: { campaigns: Campaign[] }) {
  const phone = useIsPhone();
  if (phone)
    return (
      <StackedList label="Campañas">
        {campaigns.map((c) => (
          <CampaignItem key={c.id} campaign={c} />
        ))}
      </StackedList>
    );
  return (
    <TableScroll label="Campañas">
      <table className="min-w-full divide-y divide-gray-200">
        <TableHead columns={['Nombre', 'Descripción', 'Estado', 'Progreso', 'Fecha', 'Acciones']} dense />
        <tbody className="divide-y divide-gray-200 bg-white">
          {campaigns.map((c) => (
            <CampaignRow key={c.id} campaign={c} />
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

/** The phone layout of a row: the same values and actions, stacked. */
function CampaignItem({ campaign: c }: { campaign: Campaign }) {
  return (
    <StackedItem
      testId={`campaign-item-${c.id}`}
      title={<CampaignNameLink campaign={c} />}
      aside={
        <>
          <CampaignStatusBadge status={c.status} />
          <CampaignLimitNote campaign={c} />
          <CampaignHoursNote campaign={c} />
        </>
      }
      fields={[
        ...(c.description ? [{ label: 'Descripción', value: c.description, wide: true }] : []),
        {
          label: 'Progreso',
          wide: true,
          value: (
            <div className="flex flex-col gap-1">
              <span className="text-xs text-gray-600">
                {formatNumber(c.messages_sent)} / {formatNumber(c.total_recipients)}
              </span>
              <CampaignProgressBar campaign={c} label={`Progreso de ${c.name}`} />
              <CompletedNote campaign={c} />
            </div>
          ),
        },
        { label: 'Fecha', value: formatDate(c.created_at) },
      ]}
      actions={<CampaignActions campaign={c} />}
    />
  );
}

function CampaignRow({ campaign: c }: { campaign: Campaign }) {
  return (
    <tr data-testid={`campaign-row-${c.id}`}>
      <td className="max-w-56 px-4 py-4 text-sm font-medium break-words text-gray-900">
        <CampaignNameLink campaign={c} />
      </td>
      <td className="max-w-48 truncate px-4 py-4 text-sm text-gray-500" title={c.description}>
        {c.description || '-'}
      </td>
      <td className="max-w-52 px-4 py-4">
        <CampaignStatusBadge status={c.status} />
        <CampaignLimitNote campaign={c} />
        <CampaignHoursNote campaign={c} />
      </td>
      <td className="px-4 py-4">
        <div className="flex w-40 flex-col gap-1">
          <span className="text-xs text-gray-600">
            {formatNumber(c.messages_sent)} / {formatNumber(c.total_recipients)}
          </span>
          <CampaignProgressBar campaign={c} label={`Progreso de ${c.name}`} />
          <CompletedNote campaign={c} />
        </div>
      </td>
      <td className="px-4 py-4 text-sm whitespace-nowrap text-gray-500">{formatDate(c.created_at)}</td>
      <td className="px-4 py-4 text-sm whitespace-nowrap">
        <CampaignActions campaign={c} />
      </td>
    </tr>
  );
}

/** The campaign's name, a link to its detail: the way in that never scrolls off to the right. */
function CampaignNameLink({ campaign: c }: { campaign: Campaign }) {
  return (
    <Link to={`/campaigns/${c.id}`} className="text-blue-700 underline-offset-2 hover:text-blue-900 hover:underline max-sm:inline-flex max-sm:min-h-11 max-sm:items-center">
      {c.name}
    </Link>
  );
}

/** «Completada · 63 enviados de 81 (18 omitidos)» under a finished campaign's bar. */
function CompletedNote({ campaign }: { campaign: Campaign }) {
  const note = completedSummary(campaign);
  return note ? <span className="text-xs text-gray-600">{note}</span> : null;
}

/**
 * «Ver», and «Iniciar» or «Pausar» when the status allows: shared by the row and the phone card.
 * ▷ opens the send confirmation (one tap must never send).
 */
function CampaignActions({ campaign: c }: { campaign: Campaign }) {
  const pause = usePauseCampaign();
  const [confirmingStart, setConfirmingStart] = useState(false);
  const status = campaignStatusOf(c.status);
  const busy = pause.isPending;
  // Whoever may only ask (an Editor) asks for approval instead of starting.
  const startLabel = maySendDirectly(useMeQuery().data) ? 'Iniciar' : 'Solicitar aprobación';
  return (
    <div className="flex items-center gap-3">
      <Link to={`/campaigns/${c.id}`} className="inline-flex items-center font-medium text-blue-600 hover:text-blue-800 max-sm:min-h-11 max-sm:px-2">
        Ver
      </Link>
      {status === 'draft' && (
        <button
          type="button"
          aria-label={startLabel === 'Iniciar' ? `Iniciar campaña ${c.name}` : `Solicitar aprobación de la campaña ${c.name}`}
          title={startLabel}
          disabled={busy}
          onClick={() => setConfirmingStart(true)}
          className="tap-target inline-flex items-center justify-center rounded p-1 text-green-600 hover:bg-green-50 hover:text-green-800 disabled:opacity-50"
        >
          <Play className="h-4 w-4" aria-hidden="true" />
        </button>
      )}
      {confirmingStart && <StartCampaignDialog campaign={c} open onClose={() => setConfirmingStart(false)} />}
      {CAN_PAUSE.includes(status) && (
        <button
          type="button"
          aria-label={`Pausar campaña ${c.name}`}
          title="Pausar"
          disabled={busy}
          onClick={() => pause.mutate(c.id)}
          className="tap-target inline-flex items-center justify-center rounded p-1 text-yellow-600 hover:bg-yellow-50 hover:text-yellow-800 disabled:opacity-50"
        >
          <Pause className="h-4 w-4" aria-hidden="true" />
        </button>
      )}
    </div>
  );
}
