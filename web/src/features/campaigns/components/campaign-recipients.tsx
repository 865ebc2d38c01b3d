import {
  PRICING_CATEGORY_LABELS,
  RECIPIENT_GROUP_LABELS,
  RECIPIENT_STATUSES,
  type Campaign,
  type CampaignMessage,
  type RecipientGroup,
  type RecipientStatus,
} from '@masivo/contract/campaigns';
import { useState } from 'react';
import { Badge } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { formatDateTime, formatNumber, formatShortDateTime, timeZoneLabel } from '@/lib/format';
import { useCampaignMessages } from '../api/get-campaign-messages';
import { RECIPIENT_STATUS_LABELS, recipientBadge } from './recipient-status';
import { TableHead } from '@/components/ui/table-head';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { useIsPhone } from '@/components/ui/use-media-query';
import { SEND_ROUTE_LABELS } from '@masivo/contract/marketing-messages';
import { ExportResultsButton } from './export-results-button';

const PAGE_SIZE = 50;

/** Beyond the spec: every recipient with its delivery state and Meta's error, paged and filterable. */
export function CampaignRecipients({ campaign }: { campaign: Campaign }) {
  const [status, setStatus] = useState<RecipientStatus | ''>('');
  const [reply, setReply] = useState('');
  const [page, setPage] = useState(1);
  const { group, button } = replyFilterOf(reply);
  const messages = useCampaignMessages(campaign.id, { status: status || undefined, group, button, page, limit: PAGE_SIZE }, campaign);
  const total = messages.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  return (
    <Card className="overflow-hidden">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-gray-200 px-6 py-4">
        <h2 className="text-lg font-semibold text-gray-900">Destinatarios</h2>
        <ExportResultsButton campaignId={campaign.id} filter={{ status: status || undefined, group, button }} disabled={total === 0} className="ml-auto" />
        <div className="flex flex-wrap items-center gap-3 max-sm:w-full">
          <label className="flex items-center gap-2 text-sm text-gray-600 max-sm:w-full">
            Estado
            <select
              aria-label="Filtrar por estado"
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as RecipientStatus | '');
                setPage(1);
              }}
              className="rounded-md border border-gray-300 px-2 py-1 text-sm focus:border-blue-500 max-sm:min-h-11 max-sm:min-w-0 max-sm:flex-1"
            >
              <option value="">Todos</option>
              {RECIPIENT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {RECIPIENT_STATUS_LABELS[s]}
                </option>
              ))}
            </select>
          </label>
          {campaign.started_at && (
            <label className="flex items-center gap-2 text-sm text-gray-600 max-sm:w-full">
              Respuesta
              <select
                aria-label="Filtrar por respuesta"
                value={reply}
                onChange={(e) => {
                  setReply(e.target.value);
                  setPage(1);
                }}
                className="rounded-md border border-gray-300 px-2 py-1 text-sm focus:border-blue-500 max-sm:min-h-11 max-sm:min-w-0 max-sm:flex-1"
              >
                {replyOptions(campaign).map((o) => (
                  <option key={o.value} value={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            </label>
          )}
        </div>
      </div>
      {messages.isPending ? (
        <Spinner className="py-10" />
      ) : messages.isError ? (
        <EmptyState title={messages.error.message || 'Error al cargar los destinatarios'} />
      ) : messages.data.messages.length === 0 ? (
        <EmptyState
          title={
            reply
              ? 'No hay destinatarios con esta respuesta'
              : status
                ? 'No hay destinatarios con este estado'
                : campaign.audience_kind === 'automatic'
                  ? 'Cada lead que entre en la etapa aparecerá aquí, con la hora en que le toca'
                  : 'La lista de destinatarios se genera al iniciar la campaña'
          }
        />
      ) : (
        <RecipientsTable rows={messages.data.messages} numberNames={numberNamesOf(campaign)} />
      )}
      {total > 0 && (
        <div className="flex flex-wrap items-center justify-between gap-2 border-t border-gray-200 px-4 py-3 text-sm text-gray-600 sm:px-6">
          <span>
            {formatNumber(total)} destinatarios · Página {page} de {pages}
          </span>
          <div className="flex gap-2">
            <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              Anterior
            </Button>
            <Button variant="secondary" size="sm" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
              Siguiente
            </Button>
          </div>
        </div>
      )}
    </Card>
  );
}

/** The "Respuesta" filter's value: '' (todos), a group, or `tapped:{button}`. */
const TAPPED = 'tapped:';
function replyFilterOf(value: string): { group?: RecipientGroup; button?: string } {
  if (value.startsWith(TAPPED)) return { group: 'tapped', button: value.slice(TAPPED.length) };
  return value === 'replied' || value === 'not_replied' ? { group: value } : {};
}

/** Todos, Respondieron, No respondieron, and "Tocaron «botón»" per button someone tapped. */
function replyOptions(campaign: Campaign): Array<{ value: string; label: string }> {
  return [
    { value: '', label: 'Todos' },
    { value: 'replied', label: RECIPIENT_GROUP_LABELS.replied },
    { value: 'not_replied', label: RECIPIENT_GROUP_LABELS.not_replied },
    ...(campaign.replies?.taps ?? []).map((t) => ({ value: `${TAPPED}${t.button}`, label: `Tocaron «${t.button}»` })),
  ];
}

/** The recipient's latest reply, how many, and the first button tapped. */
function ReplyCell({ m }: { m: CampaignMessage }) {
  if (!m.reply_count) return <span className="text-gray-500">-</span>;
  return (
    <span className="flex flex-col gap-1">
      <span className="line-clamp-2 text-gray-900" title={m.last_reply ?? undefined}>
        {m.last_reply}
        {m.reply_count > 1 && <span className="text-gray-600"> ({formatNumber(m.reply_count)} mensajes)</span>}
      </span>
      {m.button_tapped && (
        <span>
          <Badge tone="blue">Tocó «{m.button_tapped}»</Badge>
        </span>
      )}
    </span>
  );
}

function recipientError(m: CampaignMessage) {
  // An automatic campaign's recipient before its due time: when it will be looked up and sent.
  if (m.status === 'waiting' && m.due_at) return <span>Programado para {formatDateTime(m.due_at)}</span>;
  if (m.error_code === null && !m.error_message) return null;
  return (
    <span>
      {m.error_code !== null && <span className="font-mono text-red-700">{m.error_code}</span>}
      {m.error_code !== null && m.error_message ? ' · ' : ''}
      {m.error_message}
    </span>
  );
}

/** Meta's pricing category of the message, in Spanish (unknown ones as Meta names them). */
const pricingLabel = (category: string) => PRICING_CATEGORY_LABELS[category] ?? category;

/** A several-number campaign's numbers by id: each recipient says the number it is sent from. */
function numberNamesOf(campaign: Campaign): Map<number, string> | null {
  if (!campaign.numbers?.length) return null;
  return new Map(campaign.numbers.map((n) => [n.whatsapp_account_id, n.phone ? `${n.name} (${n.phone})` : n.name]));
}

function RecipientsTable({ rows, numberNames }: { rows: CampaignMessage[]; numberNames: Map<number, string> | null }) {
  const phone = useIsPhone();
  const numberOf = (m: CampaignMessage) => (m.whatsapp_account_id ? (numberNames?.get(m.whatsapp_account_id) ?? '-') : '-');
  if (phone)
    return (
      <StackedList label="Destinatarios">
        {rows.map((m) => (
          <StackedItem
            key={m.id}
            title={<span className="font-mono">{m.phone ?? '-'}</span>}
            aside={<RecipientBadge message={m} />}
            fields={[
              { label: 'Contacto', value: m.contact_name || '-', wide: true },
              ...(m.variant ? [{ label: 'Variante', value: m.variant }] : []),
              ...(numberNames ? [{ label: 'Número', value: numberOf(m), wide: true }] : []),
              ...(recipientError(m) ? [{ label: 'Error', value: recipientError(m), wide: true }] : []),
              { label: 'Enviado', value: formatDateTime(m.sent_at) },
              { label: 'Entregado', value: formatDateTime(m.delivered_at) },
              { label: 'Leído', value: formatDateTime(m.read_at) },
              ...(m.pricing_category ? [{ label: 'Cobro', value: pricingLabel(m.pricing_category) }] : []),
              ...(m.route ? [{ label: 'Ruta', value: SEND_ROUTE_LABELS[m.route] }] : []),
              ...(m.click_count ? [{ label: 'Clics', value: formatNumber(m.click_count) }] : []),
              ...(m.reply_count ? [{ label: 'Respuesta', value: <ReplyCell m={m} />, wide: true }] : []),
            ]}
          />
        ))}
      </StackedList>
    );
  // What a person checks first (status, delivered, read, charge) comes first, so it fits 1280 px
  // beside the sidebar; the rest scrolls sideways. Times are short here: the headers name the zone.
  const zone = timeZoneLabel(rows[0]?.sent_at ? new Date(rows[0].sent_at) : new Date());
  // A split test's rows say their variant ("Prueba A/B").
  const split = rows.some((m) => m.variant);
  return (
    <TableScroll label="Destinatarios">
      <table className="min-w-full divide-y divide-gray-200 text-sm">
        <TableHead
          columns={[
            'Teléfono',
            'Estado',
            ...(split ? ['Variante'] : []),
            ...(numberNames ? ['Número'] : []),
            `Entregado (${zone})`,
            `Leído (${zone})`,
            'Cobro',
            'Ruta y clics',
            'Contacto',
            'Respuesta',
            'Error',
            `Enviado (${zone})`,
          ]}
          dense
          nowrap
        />
        <tbody className="divide-y divide-gray-200 bg-white">
          {rows.map((m) => (
            <tr key={m.id}>
              <td className="px-4 py-3 font-mono whitespace-nowrap text-gray-900">{m.phone ?? '-'}</td>
              <td className="px-4 py-3 whitespace-nowrap">
                <RecipientBadge message={m} />
              </td>
              {split && <td className="px-4 py-3 whitespace-nowrap text-gray-700">{m.variant ?? '-'}</td>}
              {numberNames && <td className="px-4 py-3 whitespace-nowrap text-gray-700">{numberOf(m)}</td>}
              <td className="px-4 py-3 whitespace-nowrap text-gray-600" title={m.delivered_at ? formatDateTime(m.delivered_at) : undefined}>
                {formatShortDateTime(m.delivered_at)}
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-gray-600" title={m.read_at ? formatDateTime(m.read_at) : undefined}>
                {formatShortDateTime(m.read_at)}
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-gray-600">{m.pricing_category ? pricingLabel(m.pricing_category) : '-'}</td>
              <td className="px-4 py-3 whitespace-nowrap text-gray-600">
                {m.route ? SEND_ROUTE_LABELS[m.route] : '-'}
                {m.click_count ? ` · ${formatNumber(m.click_count)} ${m.click_count === 1 ? 'clic' : 'clics'}` : ''}
              </td>
              <td className="px-4 py-3 whitespace-nowrap text-gray-700">{m.contact_name || '-'}</td>
              <td className="max-w-xs min-w-40 px-4 py-3">
                <ReplyCell m={m} />
              </td>
              <td className="max-w-sm min-w-40 px-4 py-3 text-gray-600">{recipientError(m) ?? '-'}</td>
              <td className="px-4 py-3 whitespace-nowrap text-gray-600" title={m.sent_at ? formatDateTime(m.sent_at) : undefined}>
                {formatShortDateTime(m.sent_at)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function RecipientBadge({ message }: { message: CampaignMessage }) {
  const { label, tone } = recipientBadge(message);
  return <Badge tone={tone}>{label}</Badge>;
}
