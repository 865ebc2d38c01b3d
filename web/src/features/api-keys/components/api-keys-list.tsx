import { API_KEY_SCOPE_LABEL, API_KEY_STATUS_LABEL, type ApiKey } from '@masivo/contract/api-keys';
import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { Ban, CheckCircle2, Clock, KeyRound, XCircle } from 'lucide-react';
import { Badge, type BadgeTone } from '@/components/ui/badge';
import { Button } from '@/components/ui/button';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { TableHead } from '@/components/ui/table-head';
import { useIsPhone } from '@/components/ui/use-media-query';
import { formatShortDateTime, timeZoneLabel } from '@/lib/format';

const STATUS_TONE: Record<ApiKey['status'], BadgeTone> = { active: 'green', expired: 'yellow', revoked: 'gray' };
const STATUS_ICON = { active: CheckCircle2, expired: Clock, revoked: Ban } as const;

/** The status in words with an icon: colour is never the only cue. */
export function StatusBadge({ status }: { status: ApiKey['status'] }) {
  const Icon = STATUS_ICON[status];
  return (
    <Badge tone={STATUS_TONE[status]} className="gap-1 whitespace-nowrap">
      <Icon className="h-3.5 w-3.5" aria-hidden="true" />
      {API_KEY_STATUS_LABEL[status]}
    </Badge>
  );
}

function Scopes({ apiKey }: { apiKey: ApiKey }) {
  return (
    <ul className="space-y-0.5">
      {apiKey.scopes.map((s) => (
        <li key={s}>{API_KEY_SCOPE_LABEL[s]}</li>
      ))}
    </ul>
  );
}

/** The numbers' names; an id the list no longer has (a deleted number) shows as «#id». */
function numbersText(apiKey: ApiKey, numbers: WhatsAppAccount[] | undefined): string {
  if (!apiKey.whatsapp_account_ids.length) return 'Todos';
  return apiKey.whatsapp_account_ids.map((id) => numbers?.find((n) => n.id === id)?.name ?? `#${id}`).join(', ');
}

function LastUse({ apiKey }: { apiKey: ApiKey }) {
  if (!apiKey.last_used_at) return <span className="text-gray-500">Nunca</span>;
  return (
    <>
      {formatShortDateTime(apiKey.last_used_at)}
      {apiKey.last_used_ip && <span className="block text-xs text-gray-500">IP {apiKey.last_used_ip}</span>}
    </>
  );
}

const expiry = (apiKey: ApiKey) => (apiKey.expires_at ? formatShortDateTime(apiKey.expires_at) : 'No vence');

function RevokeButton({ apiKey, onRevoke }: { apiKey: ApiKey; onRevoke: (k: ApiKey) => void }) {
  if (apiKey.status === 'revoked') return null;
  return (
    <Button variant="ghost" size="sm" className="-ml-2.5 text-red-700" onClick={() => onRevoke(apiKey)} aria-label={`Revocar la clave ${apiKey.name}`}>
      <XCircle className="h-4 w-4" aria-hidden="true" />
      Revocar
    </Button>
  );
}

/**
 * The keys, as a table from `sm` up and as one card per key on a phone (only one layout is in
 * the DOM). Times are short, and the column headers name their zone.
 */
export function ApiKeysList({ keys, numbers, onRevoke }: { keys: ApiKey[]; numbers: WhatsAppAccount[] | undefined; onRevoke: (k: ApiKey) => void }) {
  const phone = useIsPhone();
  const zone = timeZoneLabel();
  if (phone)
    return (
      <StackedList label="Claves de API">
        {keys.map((k) => (
          <StackedItem
            key={k.id}
            testId="api-key-row"
            title={
              <>
                <KeyRound className="mr-1 inline h-4 w-4 text-gray-500" aria-hidden="true" />
                {k.name}
                <span className="block font-mono text-xs font-normal text-gray-500">{k.start}…</span>
              </>
            }
            aside={<StatusBadge status={k.status} />}
            fields={[
              { label: 'Permisos', value: <Scopes apiKey={k} />, wide: true },
              { label: 'Números', value: numbersText(k, numbers), wide: true },
              { label: 'Creada por', value: k.created_by?.name ?? '-' },
              { label: `Creada (${zone})`, value: formatShortDateTime(k.created_at) },
              { label: `Vence (${zone})`, value: expiry(k) },
              { label: `Último uso (${zone})`, value: <LastUse apiKey={k} /> },
            ]}
            actions={k.status === 'revoked' ? undefined : <RevokeButton apiKey={k} onRevoke={onRevoke} />}
          />
        ))}
      </StackedList>
    );
  return (
    <TableScroll label="Lista de claves de API">
      <table className="min-w-full divide-y divide-gray-200 text-sm">
        <TableHead
          columns={['Nombre', 'Permisos', 'Números', `Creada (${zone})`, `Vence (${zone})`, `Último uso (${zone})`, 'Estado']}
          dense
        />
        <tbody className="divide-y divide-gray-100 bg-white">
          {keys.map((k) => (
            <tr key={k.id} data-testid="api-key-row" className="align-top">
              <td className="px-4 py-2.5 font-medium text-gray-900">
                {k.name}
                <span className="block font-mono text-xs font-normal text-gray-500">{k.start}…</span>
              </td>
              <td className="min-w-48 px-4 py-2.5 text-gray-700">
                <Scopes apiKey={k} />
              </td>
              <td className="px-4 py-2.5 text-gray-700">{numbersText(k, numbers)}</td>
              {/* Who and when in one cell, so the row fits at 1280 px with «Revocar» in view. */}
              <td className="px-4 py-2.5 text-gray-700">
                <span className="whitespace-nowrap">{formatShortDateTime(k.created_at)}</span>
                {k.created_by && <span className="block text-xs text-gray-500">por {k.created_by.name}</span>}
              </td>
              <td className="px-4 py-2.5 whitespace-nowrap text-gray-700">{expiry(k)}</td>
              <td className="px-4 py-2.5 whitespace-nowrap text-gray-700">
                <LastUse apiKey={k} />
              </td>
              {/* «Revocar» under the status it changes: a column of its own pushed it out of view at 1280 px. */}
              <td className="px-4 py-2.5">
                <div className="flex flex-col items-start gap-1">
                  <StatusBadge status={k.status} />
                  <RevokeButton apiKey={k} onRevoke={onRevoke} />
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}
