import { CAN_DELETE, CAN_PAUSE, CAN_RETRY, CAN_START, type Campaign } from '@masivo/contract/campaigns';
import { ArrowLeft, CheckCheck, Eye, Pause, Play, RotateCcw, Send, SkipForward, Trash2, Users, XCircle, HelpCircle, Percent, Activity, Clock } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { CampaignStatusBadge, campaignStatusOf, campaignProgress, completedSummary } from '@/components/campaign-status';
import { Button } from '@/components/ui/button';
import { Card, StatCard } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { ApiError, errorMessage } from '@/lib/api-client';
import { formatDateTime, formatNumber } from '@/lib/format';
import { useDeleteCampaign } from '../api/delete-campaign';
import { useCampaign } from '../api/get-campaign';
import { usePauseCampaign } from '../api/pause-campaign';
import { useRetryFailed } from '../api/retry-failed';
import { useRetryUnknown } from '../api/retry-unknown';
import { CampaignActivityCard } from './campaign-activity-card';
import { CampaignProgress } from './campaign-progress';
import { CampaignPreflight } from './campaign-preflight';
import { CampaignRecipients } from './campaign-recipients';
import { CampaignWriteback } from './campaign-writeback';
import { TemplateRiskNotice } from './template-section';
import { CampaignLimitNote } from '@/components/campaign-limit-note';
import { CampaignHoursNote } from '@/components/campaign-hours-note';
import { CampaignHoursCard } from './campaign-hours-card';
import { CampaignAfterSend } from './campaign-after-send';
import { CampaignCharts } from './campaign-charts';
import { CampaignAudienceNote } from './campaign-audience-note';
import { AutomationCard } from './automation-card';
import { SplitTestCard } from './split-test-card';
import { CampaignNumbersCard } from './campaign-numbers-card';
import { FollowUpButton } from './follow-up-dialog';
import { ScheduleActions } from './schedule-actions';
import { StartCampaignDialog } from './start-campaign-dialog';
import { CampaignApprovalCard } from './campaign-approval-card';
import { maySendDirectly } from '../api/approvals';
import { CampaignMarketingCard } from './campaign-marketing-card';
import { useMember, useMeQuery } from '@/lib/use-member';

export const DELETE_CONFIRMATION = '¿Estás seguro de que quieres eliminar esta campaña?';
export const RETRY_UNKNOWN_CONFIRMATION =
  'WhatsApp no confirmó qué pasó con estos mensajes: algunas de estas personas pueden haberlo recibido ya y lo recibirían dos veces. ¿Reintentar de todos modos?';

export function CampaignDetailPage() {
  const id = Number(useParams().id);
  const campaign = useCampaign(id);

  if (!Number.isInteger(id) || id <= 0) return <CampaignNotFound />;
  if (campaign.isError) {
    // A foreign or deleted id is a 404 (an unparsable one a 400): both mean "not found".
    const missing = campaign.error instanceof ApiError && (campaign.error.status === 404 || campaign.error.status === 400);
    return missing ? <CampaignNotFound /> : <Card><EmptyState title={errorMessage(campaign.error, 'Error al cargar la campaña')} /></Card>;
  }
  if (campaign.isPending) return <Spinner className="py-24" />;
  return <CampaignDetail campaign={campaign.data} />;
}

function CampaignNotFound() {
  return (
    <Card>
      <EmptyState
        title="Campaña no encontrada"
        action={
          <Link to="/campaigns" className="text-sm font-medium text-blue-600 hover:text-blue-800">
            Volver a campañas
          </Link>
        }
      />
    </Card>
  );
}

function CampaignDetail({ campaign: c }: { campaign: Campaign }) {
  const status = campaignStatusOf(c.status);
  const percent = campaignProgress(c);
  const retryable = c.failed_count;
  return (
    <div className="space-y-6">
      <Link to="/campaigns" className="inline-flex items-center gap-1 text-sm text-gray-500 hover:text-gray-700 max-sm:min-h-11">
        <ArrowLeft className="h-4 w-4" aria-hidden="true" />
        Campañas
      </Link>
      <PageHeader title={c.name} description={c.description || undefined} actions={<CampaignActions campaign={c} retryable={retryable} />} />

      {c.pause_reason && status !== 'sending' && (
        <div role="alert" className="rounded-md border border-yellow-300 bg-yellow-50 px-4 py-3 text-sm text-yellow-800">
          <span className="font-medium">Motivo de la pausa:</span> {c.pause_reason}
        </div>
      )}

      {c.template_risk && (status === 'draft' || status === 'scheduled' || status === 'sending' || status === 'paused') && (
        <TemplateRiskNotice category_change={c.template_risk.category_change} status_detail={c.template_risk.status_detail} />
      )}

      {c.held_count > 0 && (
        <p role="status" data-testid="campaign-held" className="rounded-md border border-blue-200 bg-blue-50 px-4 py-3 text-sm text-blue-800">
          <span className="font-medium">Retenidos por Meta: {formatNumber(c.held_count)}.</span> Meta evalúa la calidad de una plantilla
          de marketing nueva antes de entregarla; estos mensajes no han fallado y se entregarán o fallarán cuando Meta termine.
        </p>
      )}

      <CampaignApprovalCard campaign={c} />

      <CampaignAudienceNote campaign={c} />
      <AutomationCard campaign={c} />

      {(status === 'draft' || status === 'scheduled' || status === 'paused') && !c.started_at && c.audience_kind !== 'automatic' && <CampaignPreflight id={c.id} fixedList={c.audience_kind === 'contact_list'} explicit={c.audience_kind === 'explicit'} />}

      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard
          title="Estado"
          value={
            <>
              <CampaignStatusBadge status={c.status} />
              <CampaignLimitNote campaign={c} />
              <CampaignHoursNote campaign={c} />
            </>
          }
          icon={<Activity className="h-6 w-6" />}
          tone="gray"
        />
        <StatCard title="Total Destinatarios" value={formatNumber(c.total_recipients)} icon={<Users className="h-6 w-6" />} />
        <StatCard title="Mensajes Enviados" value={formatNumber(c.messages_sent)} icon={<Send className="h-6 w-6" />} tone="green" />
        <StatCard title="Progreso" value={`${percent}%`} icon={<Percent className="h-6 w-6" />} tone="purple" note={completedSummary(c)} testId="campaign-progress-card" />
      </div>

      <CampaignHoursCard campaign={c} />
      <CampaignNumbersCard campaign={c} />

      <Card className="p-6">
        <h2 className="mb-4 text-lg font-semibold text-gray-900">Progreso de la Campaña</h2>
        <CampaignProgress campaign={c} />
        <dl className={`mt-6 grid grid-cols-2 gap-4 ${c.deferred_count ? 'sm:grid-cols-3 lg:grid-cols-6' : 'sm:grid-cols-5'}`}>
          <Count label="Entregados" value={c.delivered_count} icon={<CheckCheck className="h-4 w-4 text-green-600" />} />
          <Count label="Leídos" value={c.read_count} icon={<Eye className="h-4 w-4 text-purple-600" />} />
          <Count label="Fallidos" value={c.failed_count} icon={<XCircle className="h-4 w-4 text-red-600" />} />
          <Count label="Omitidos" value={c.skipped_count} icon={<SkipForward className="h-4 w-4 text-orange-500" />} />
          <Count label="Desconocidos" value={c.unknown_count} icon={<HelpCircle className="h-4 w-4 text-slate-500" />} />
          {(c.marketing_messages?.expired_count ?? 0) > 0 && (
            <Count label="Vencidos" value={c.marketing_messages!.expired_count} icon={<Clock className="h-4 w-4 text-orange-500" />} />
          )}
          {c.deferred_count > 0 && (
            <Count label="Diferidos (límite de marketing)" value={c.deferred_count} icon={<Clock className="h-4 w-4 text-yellow-600" />} />
          )}
        </dl>
      </Card>

      <SplitTestCard campaign={c} />
      <CampaignCharts campaign={c} />
      <CampaignAfterSend campaign={c} />
      <CampaignMarketingCard campaign={c} />

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card className="p-6">
          <h2 className="mb-4 text-lg font-semibold text-gray-900">Detalles</h2>
          <dl className="space-y-3 text-sm">
            <Detail label="Tipo de mensaje">{c.message_type === 'text' ? 'Texto' : 'Plantilla'}</Detail>
            <Detail label="Fecha de creación">{formatDateTime(c.created_at)}</Detail>
            {c.scheduled_at && <Detail label="Fecha programada">{formatDateTime(c.scheduled_at)}</Detail>}
            {c.started_at && <Detail label="Fecha de inicio">{formatDateTime(c.started_at)}</Detail>}
            {c.completed_at && <Detail label="Fecha de finalización">{formatDateTime(c.completed_at)}</Detail>}
          </dl>
        </Card>
        <Card className="p-6">
          <h2 className="mb-4 text-lg font-semibold text-gray-900">Contenido del Mensaje</h2>
          {c.message_type === 'text' ? (
            <p className="text-sm whitespace-pre-wrap text-gray-700">{c.message_content}</p>
          ) : (
            <dl className="space-y-3 text-sm">
              <Detail label="Plantilla">{c.template_name ?? '-'}</Detail>
              <Detail label="Idioma">{c.template_language ?? '-'}</Detail>
            </dl>
          )}
        </Card>
      </div>

      <CampaignWriteback campaign={c} />
      <CampaignRecipients campaign={c} />
      <CampaignActivityCard campaign={c} />
    </div>
  );
}

function CampaignActions({ campaign: c, retryable }: { campaign: Campaign; retryable: number }) {
  const navigate = useNavigate();
  const pause = usePauseCampaign();
  const retry = useRetryFailed();
  const retryUnknown = useRetryUnknown();
  const remove = useDeleteCampaign();
  const status = campaignStatusOf(c.status);
  const busy = pause.isPending || retry.isPending || retryUnknown.isPending || remove.isPending;
  // Sending cannot be undone: «Iniciar» opens the confirmation with the pre-flight first.
  const [confirmingStart, setConfirmingStart] = useState(false);
  // Whoever may only ask (an Editor) asks for approval instead of starting.
  const asks = !maySendDirectly(useMeQuery().data);
  // The actions a role does not have are not offered (the server refuses them anyway).
  const { can } = useMember();
  const mayStart = can('campaigns.start');
  const maySend = can('campaigns.send');
  const mayEdit = can('campaigns.edit');

  const onRetryUnknown = () => {
    if (!window.confirm(RETRY_UNKNOWN_CONFIRMATION)) return;
    retryUnknown.mutate(c.id);
  };

  const onDelete = () => {
    if (!window.confirm(DELETE_CONFIRMATION)) return;
    remove.mutate(c.id, { onSuccess: () => navigate('/campaigns') });
  };

  return (
    <>
      {mayStart && CAN_START.includes(status) && (
        <Button variant="success" disabled={busy} onClick={() => setConfirmingStart(true)}>
          <Play className="h-4 w-4" />
          {asks ? 'Solicitar aprobación' : 'Iniciar'}
        </Button>
      )}
      {confirmingStart && <StartCampaignDialog campaign={c} open onClose={() => setConfirmingStart(false)} />}
      {/* An automatic campaign has no date and no filter form: it is switched on and off. */}
      {mayEdit && c.audience_kind !== 'automatic' && <ScheduleActions campaign={c} busy={busy} />}
      {maySend && CAN_PAUSE.includes(status) && (
        <Button variant="warning" disabled={busy} onClick={() => pause.mutate(c.id)}>
          <Pause className="h-4 w-4" />
          Pausar
        </Button>
      )}
      {maySend && retryable > 0 && CAN_RETRY.includes(status) && (
        <Button variant="secondary" disabled={busy} onClick={() => retry.mutate(c.id)}>
          <RotateCcw className="h-4 w-4" />
          Reintentar fallidos
        </Button>
      )}
      {maySend && c.unknown_count > 0 && CAN_RETRY.includes(status) && (
        <Button variant="secondary" disabled={busy} onClick={onRetryUnknown}>
          <HelpCircle className="h-4 w-4" aria-hidden="true" />
          Reintentar desconocidos
        </Button>
      )}
      {/* A follow-up reaches contacts again; explicit recipients are no contacts (and have no Kommo account). */}
      {mayEdit && c.started_at && c.audience_kind !== 'explicit' && <FollowUpButton campaign={c} />}
      {maySend && CAN_DELETE.includes(status) && (
        <Button variant="danger" disabled={busy} onClick={onDelete}>
          <Trash2 className="h-4 w-4" />
          Eliminar
        </Button>
      )}
    </>
  );
}

function Count({ label, value, icon }: { label: string; value: number; icon: ReactNode }) {
  return (
    <div className="rounded-md bg-gray-50 px-3 py-2">
      <dt className="flex items-center gap-1.5 text-xs text-gray-500">
        {icon}
        {label}
      </dt>
      <dd className="text-lg font-semibold text-gray-900" data-testid={`count-${label}`}>
        {formatNumber(value)}
      </dd>
    </div>
  );
}

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex justify-between gap-4">
      <dt className="text-gray-500">{label}</dt>
      <dd className="text-right font-medium text-gray-900">{children}</dd>
    </div>
  );
}
