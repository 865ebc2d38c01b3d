import { formatTtl, MARKETING_TTL_MAX_SECONDS, MARKETING_TTL_MIN_SECONDS } from '@masivo/contract/marketing-messages';
import type { Template } from '@masivo/contract/templates';
import { Clock } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { errorMessage } from '@/lib/api-client';
import { useSetTemplateTtl } from '../api/template-ttl';

const HOUR = 3600;
/** The choices offered: 12 h (Meta's minimum) to 30 days (its maximum and default). */
export const TTL_CHOICES = [12, 24, 48, 72, 168, 336, 720].map((h) => h * HOUR).filter((s) => s >= MARKETING_TTL_MIN_SECONDS && s <= MARKETING_TTL_MAX_SECONDS);
const CONTROL = 'block w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500';

/** «Vencimiento»: '' is Meta's default (30 days). */
export function TtlSelect({ id, value, onChange, disabled }: { id: string; value: number | null; onChange: (v: number | null) => void; disabled?: boolean }) {
  return (
    <select id={id} className={CONTROL} value={value ?? ''} disabled={disabled} onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}>
      <option value="">Por defecto de Meta (30 días)</option>
      {TTL_CHOICES.map((s) => (
        <option key={s} value={s}>
          {formatTtl(s)}
        </option>
      ))}
      {value !== null && !TTL_CHOICES.includes(value) && <option value={value}>{formatTtl(value)}</option>}
    </select>
  );
}

export const TTL_HELP =
  'Si el mensaje no se entrega en ese plazo (teléfono apagado, sin conexión), Meta lo descarta y el destinatario queda como «Vencido». Solo se aplica a los envíos por la API de marketing de Meta.';

/** The template card's «Vencimiento» of a marketing template, editable by who manages templates. */
export function TemplateTtl({ template, mayManage }: { template: Template; mayManage: boolean }) {
  const save = useSetTemplateTtl();
  const current = template.message_send_ttl_seconds ?? null;
  const [draft, setDraft] = useState<number | null>(current);
  if (template.category.toLowerCase() !== 'marketing') return null;
  const fieldId = `ttl-${template.id}`;
  const onSave = async () => {
    try {
      await save.mutateAsync({ id: template.id, ttl: draft });
      toast.success('Vencimiento guardado');
    } catch (err) {
      toast.error(errorMessage(err, 'No se pudo guardar el vencimiento'));
    }
  };
  return (
    <div className="mt-3 rounded-md bg-gray-50 p-3 text-sm" data-testid="template-ttl">
      <label htmlFor={fieldId} className="flex items-center gap-1.5 font-medium text-gray-700">
        <Clock className="h-4 w-4" aria-hidden /> Vencimiento: {current ? formatTtl(current) : 'por defecto de Meta (30 días)'}
      </label>
      {mayManage && (
        <div className="mt-2 flex flex-wrap items-center gap-2">
          <div className="min-w-48 flex-1">
            <TtlSelect id={fieldId} value={draft} onChange={setDraft} disabled={save.isPending} />
          </div>
          <Button size="sm" variant="secondary" onClick={onSave} disabled={save.isPending || draft === current}>
            {save.isPending ? 'Guardando...' : 'Guardar'}
          </Button>
        </div>
      )}
      <p className="mt-1 text-xs text-gray-500">{TTL_HELP}</p>
    </div>
  );
}
