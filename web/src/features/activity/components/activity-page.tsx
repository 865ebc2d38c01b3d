import { ACTIVITY_ACTION_LABEL, ACTIVITY_ACTIONS, ACTIVITY_TARGET_LABEL } from '@masivo/contract/activity';
import { ROLE_LABEL } from '@masivo/contract/organizations';
import { Download, History } from 'lucide-react';
import { useMemo } from 'react';
import toast from 'react-hot-toast';
import { useSearchParams } from 'react-router';
import { ActorLabel, ChangesDetails, OutcomeLabel, TargetLabel, actionLabel } from '@/components/activity/activity-entry-parts';
import { CsvFormatSelect, useCsvFormat } from '@/components/csv-format-select';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { StackedItem, StackedList, TableScroll } from '@/components/ui/data-list';
import { EmptyState } from '@/components/ui/empty-state';
import { Input, Select } from '@/components/ui/field';
import { PageHeader } from '@/components/ui/page-header';
import { Spinner } from '@/components/ui/spinner';
import { TableHead } from '@/components/ui/table-head';
import { useIsPhone } from '@/components/ui/use-media-query';
import { errorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useActivity, useExportActivity, useMembers, type ActivityFilter } from '../api/get-activity';

const FILTER_KEYS = ['user_id', 'action', 'target_type', 'target_id', 'from', 'to'] as const;
const COLUMNS = ['Fecha', 'Usuario', 'Acción', 'Objeto', 'Resultado', 'Cambios'] as const;

/**
 * «Registro de actividad»: who did what in the organisation, newest first. The filters live in
 * the address, so a filtered view can be shared or reloaded; «Exportar CSV» downloads what the
 * filters show (and is itself recorded).
 */
export function ActivityPage() {
  const [params, setParams] = useSearchParams();
  const filter = useMemo<ActivityFilter>(() => {
    const f: Record<string, string | number> = {};
    for (const k of FILTER_KEYS) {
      const v = params.get(k);
      if (v) f[k] = k === 'user_id' ? Number(v) : v;
    }
    return f as ActivityFilter;
  }, [params]);
  const setFilter = (key: (typeof FILTER_KEYS)[number], value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  const list = useActivity(filter);
  const members = useMembers();
  const [format, setFormat] = useCsvFormat();
  const exporter = useExportActivity();
  const entries = list.data?.pages.flatMap((p) => p.items) ?? [];
  const phone = useIsPhone();

  const onExport = () =>
    exporter.mutate({ filter, format }, { onError: (err) => toast.error(errorMessage(err, 'Error al exportar el registro')) });

  return (
    <div className="space-y-4">
      <PageHeader
        title="Registro de actividad"
        description="Quién hizo qué en la organización: acciones de los miembros y del sistema, incluidas las denegadas"
        actions={
          <div className="flex flex-wrap items-center gap-2">
            <CsvFormatSelect value={format} onChange={setFormat} />
            <Button variant="secondary" onClick={onExport} disabled={exporter.isPending}>
              <Download className="h-4 w-4" aria-hidden="true" />
              Exportar CSV
            </Button>
          </div>
        }
      />
      <Card className="grid gap-4 p-4 sm:grid-cols-2 lg:grid-cols-3">
        <Select label="Miembro" id="activity-member" value={filter.user_id ?? ''} onChange={(e) => setFilter('user_id', e.target.value)}>
          <option value="">Todos</option>
          {members.data?.map((m) => (
            <option key={m.user_id} value={m.user_id}>
              {`${m.first_name} ${m.last_name}`.trim() || m.email} ({ROLE_LABEL[m.role]})
            </option>
          ))}
        </Select>
        <Select label="Acción" id="activity-action" value={filter.action ?? ''} onChange={(e) => setFilter('action', e.target.value)}>
          <option value="">Todas</option>
          {ACTIVITY_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {ACTIVITY_ACTION_LABEL[a]}
            </option>
          ))}
        </Select>
        <Select label="Objeto" id="activity-target" value={filter.target_type ?? ''} onChange={(e) => setFilter('target_type', e.target.value)}>
          <option value="">Todos</option>
          {Object.entries(ACTIVITY_TARGET_LABEL).map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </Select>
        <Input
          label="ID del objeto"
          id="activity-target-id"
          value={filter.target_id ?? ''}
          onChange={(e) => setFilter('target_id', e.target.value.trim())}
          placeholder="Ej: 42"
        />
        <Input label="Desde" id="activity-from" type="date" value={filter.from ?? ''} onChange={(e) => setFilter('from', e.target.value)} />
        <Input label="Hasta" id="activity-to" type="date" value={filter.to ?? ''} onChange={(e) => setFilter('to', e.target.value)} />
      </Card>
      <Card className="overflow-hidden">
        {list.isLoading ? (
          <Spinner className="py-12" />
        ) : list.isError ? (
          <p role="alert" className="p-6 text-center text-red-600">
            {errorMessage(list.error, 'Error al cargar el registro de actividad')}
          </p>
        ) : entries.length === 0 ? (
          <EmptyState icon={<History className="h-12 w-12" />} title="No hay actividad con estos filtros" />
        ) : phone ? (
          <StackedList label="Registro de actividad">
            {entries.map((e) => (
              <StackedItem
                key={e.id}
                testId="activity-entry"
                title={actionLabel(e)}
                aside={<span className="text-xs text-gray-500">{formatDateTime(e.at)}</span>}
                fields={[
                  { label: 'Usuario', value: <ActorLabel entry={e} /> },
                  { label: 'Resultado', value: <OutcomeLabel entry={e} /> },
                  { label: 'Objeto', value: <TargetLabel entry={e} />, wide: true },
                  { label: 'Cambios', value: <ChangesDetails entry={e} />, wide: true },
                ]}
              />
            ))}
          </StackedList>
        ) : (
          <TableScroll label="Registro de actividad">
            <table className="min-w-full divide-y divide-gray-200 text-sm">
              <TableHead columns={COLUMNS} dense />
              <tbody className="divide-y divide-gray-200 bg-white">
                {entries.map((e) => (
                  <tr key={e.id} data-testid="activity-entry" className="align-top">
                    <td className="px-4 py-3 whitespace-nowrap text-gray-700">{formatDateTime(e.at)}</td>
                    <td className="px-4 py-3">
                      <ActorLabel entry={e} />
                    </td>
                    <td className="px-4 py-3 text-gray-900">{actionLabel(e)}</td>
                    <td className="px-4 py-3">
                      <TargetLabel entry={e} />
                    </td>
                    <td className="px-4 py-3">
                      <OutcomeLabel entry={e} />
                    </td>
                    <td className="max-w-md px-4 py-3">
                      <ChangesDetails entry={e} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        )}
        {list.hasNextPage && (
          <div className="border-t p-3 text-center">
            <Button variant="secondary" size="sm" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              {list.isFetchingNextPage ? 'Cargando…' : 'Cargar más'}
            </Button>
          </div>
        )}
      </Card>
    </div>
  );
}
