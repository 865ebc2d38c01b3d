import { SPLIT_METRIC_LABELS, SPLIT_METRICS, SPLIT_NO_WINNER, SPLIT_NO_WINNER_LABELS, MAX_VARIANTS, variantLabel, type AbTest, type SplitMetric, type SplitNoWinner } from '@masivo/contract/split-test';
import { Plus, X } from 'lucide-react';
import { useAccountTemplates } from '@/api/templates';
import { Button } from '@/components/ui/button';
import { Input, Select } from '@/components/ui/field';
import { templateBlocker, templateOptionLabel, useUnmappedVariables } from './template-section';

/** The form's "Prueba A/B" section: off, or the other variants' templates and the test's settings. */
export interface SplitTestDraft {
  enabled: boolean;
  /** Templates of variants B, C and D ('' while not chosen); A is the campaign's template. */
  others: Array<number | ''>;
  /** The test slice in percent of the audience (1–100). */
  sharePercent: string;
  metric: SplitMetric;
  wait: string;
  waitUnit: 'minutes' | 'hours';
  noWinner: SplitNoWinner;
}

export const EMPTY_SPLIT: SplitTestDraft = { enabled: false, others: [''], sharePercent: '20', metric: 'reply', wait: '4', waitUnit: 'hours', noWinner: 'send_best' };

/**
 * The payload's `variants` and `ab_test`, or the reason it cannot be sent yet (null when the
 * test is off). The server checks the same rules (split-test.ts).
 */
export function splitTestPayload(draft: SplitTestDraft, templateId: number | undefined): { error: string } | { variants: Array<{ template_id: number }>; ab_test: AbTest } | null {
  if (!draft.enabled) return null;
  if (!templateId) return { error: 'Elige primero la plantilla de la variante A' };
  if (draft.others.some((t) => t === '')) return { error: 'Elige la plantilla de cada variante de la prueba A/B' };
  const ids = [templateId, ...draft.others.map(Number)];
  if (new Set(ids).size !== ids.length) return { error: 'Cada variante de la prueba A/B debe usar una plantilla distinta' };
  const share = Number(draft.sharePercent.replace(',', '.')) / 100;
  if (!(share >= 0.01 && share <= 1)) return { error: 'La porción de prueba debe estar entre 1 % y 100 %' };
  const wait = Number(draft.wait.replace(',', '.'));
  const seconds = Math.round(wait * (draft.waitUnit === 'hours' ? 3600 : 60));
  if (!(seconds >= 60 && seconds <= 7 * 24 * 3600)) return { error: 'La espera debe ser de 1 minuto a 7 días' };
  return {
    variants: ids.map((template_id) => ({ template_id })),
    ab_test: { share, metric: draft.metric, wait_seconds: seconds, no_winner: draft.noWinner },
  };
}

/**
 * "Prueba A/B": two to four variants (A is the template chosen above), each sent with its own
 * mapping to an even part of the test slice; after the wait the winner by the metric goes to
 * the rest of the audience.
 */
export function SplitTestFields({
  whatsappAccountId,
  templateId,
  value,
  onChange,
  error,
}: {
  whatsappAccountId: number;
  templateId: number | undefined;
  value: SplitTestDraft;
  onChange: (v: SplitTestDraft) => void;
  error?: string;
}) {
  const templates = useAccountTemplates(whatsappAccountId);
  const list = templates.data ?? [];
  const unmapped = useUnmappedVariables(list);
  const set = (patch: Partial<SplitTestDraft>) => onChange({ ...value, ...patch });
  const templateA = list.find((t) => t.id === templateId);
  return (
    <div className="space-y-4">
      <label className="flex items-start gap-3 text-sm text-gray-800">
        <input type="checkbox" className="mt-0.5 h-4 w-4" checked={value.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
        <span>
          <span className="font-medium">Hacer una prueba A/B</span>
          <span className="block text-gray-600">
            Envía de 2 a 4 plantillas a una parte del público, espera y manda la ganadora al resto. Cada persona recibe una sola variante.
          </span>
        </span>
      </label>
      {value.enabled && (
        <>
          <div className="space-y-3">
            <p className="text-sm text-gray-700">
              <span className="font-medium">Variante A:</span> {templateA ? `${templateA.name} (${templateA.language})` : 'la plantilla elegida arriba'}
            </p>
            {value.others.map((t, i) => (
              <div key={i} className="flex items-end gap-2">
                <div className="min-w-0 flex-1">
                  <Select
                    label={`Plantilla de la variante ${variantLabel(i + 1)} *`}
                    id={`split_variant_${i + 1}`}
                    value={t}
                    onChange={(e) => set({ others: value.others.map((o, j) => (j === i ? (e.target.value ? Number(e.target.value) : '') : o)) })}
                  >
                    <option value="">Selecciona un template</option>
                    {list
                      .filter((x) => x.id !== templateId)
                      .map((x) => (
                        <option key={x.id} value={x.id} disabled={templateBlocker(x, unmapped.get(x.id)) !== null}>
                          {templateOptionLabel(x, unmapped.get(x.id))}
                        </option>
                      ))}
                  </Select>
                </div>
                {value.others.length > 1 && (
                  <Button
                    variant="secondary"
                    aria-label={`Quitar la variante ${variantLabel(i + 1)}`}
                    onClick={() => set({ others: value.others.filter((_, j) => j !== i) })}
                  >
                    <X className="h-4 w-4" aria-hidden="true" />
                  </Button>
                )}
              </div>
            ))}
            {value.others.length < MAX_VARIANTS - 1 && (
              <Button variant="secondary" onClick={() => set({ others: [...value.others, ''] })}>
                <Plus className="mr-1 h-4 w-4" aria-hidden="true" />
                Agregar variante {variantLabel(value.others.length + 1)}
              </Button>
            )}
          </div>
          <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
            <Input
              label="Porción de prueba (%) *"
              id="split_share"
              type="number"
              inputMode="decimal"
              min={1}
              max={100}
              value={value.sharePercent}
              hint="Parte del público que recibe las variantes; el resto recibe la ganadora."
              onChange={(e) => set({ sharePercent: e.target.value })}
            />
            <Select label="Métrica *" id="split_metric" value={value.metric} onChange={(e) => set({ metric: e.target.value as SplitMetric })}>
              {SPLIT_METRICS.map((m) => (
                <option key={m} value={m}>
                  {SPLIT_METRIC_LABELS[m]}
                  {m === 'click' ? ' (si los clics se registran)' : ''}
                </option>
              ))}
            </Select>
            <div className="grid grid-cols-[minmax(0,1fr)_auto] items-end gap-2">
              <Input label="Espera antes de decidir *" id="split_wait" type="number" inputMode="decimal" min={1} value={value.wait} onChange={(e) => set({ wait: e.target.value })} />
              <Select label="Unidad" id="split_wait_unit" value={value.waitUnit} onChange={(e) => set({ waitUnit: e.target.value as 'minutes' | 'hours' })}>
                <option value="minutes">minutos</option>
                <option value="hours">horas</option>
              </Select>
            </div>
            <Select label="Sin ganador significativo *" id="split_no_winner" value={value.noWinner} onChange={(e) => set({ noWinner: e.target.value as SplitNoWinner })}>
              {SPLIT_NO_WINNER.map((m) => (
                <option key={m} value={m}>
                  {SPLIT_NO_WINNER_LABELS[m]}
                </option>
              ))}
            </Select>
          </div>
          <p className="text-xs text-gray-600">
            Tras la espera, una prueba z de dos proporciones al 95 % decide (con 3 o 4 variantes, cada una contra la mejor con corrección de Bonferroni).
            Con pocos envíos por variante rara vez hay un ganador significativo.
          </p>
          {error && (
            <p role="alert" className="text-sm text-red-600">
              {error}
            </p>
          )}
        </>
      )}
    </div>
  );
}
