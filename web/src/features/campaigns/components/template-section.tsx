import type { Template } from '@masivo/contract/templates';
import { AlertTriangle } from 'lucide-react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { Link } from 'react-router';
import { Select } from '../../../components/ui/field';
import { Spinner } from '../../../components/ui/spinner';
import { useAccountTemplates } from '../api/get-account-templates';

const NOT_APPROVED: Record<string, string> = {
  pending: 'pendiente',
  rejected: 'rechazada',
  disabled: 'deshabilitada',
};

/** Spec: the select shows name, language and category. Only approved templates can be sent. */
export const templateOptionLabel = (t: Pick<Template, 'name' | 'language' | 'category' | 'status'>) =>
  `${t.name} (${t.language}) - ${t.category}` + (t.status === 'approved' ? '' : ` · ${NOT_APPROVED[t.status] ?? t.status}`);

export function TemplateSection({
  whatsappAccountId,
  templateId,
  field,
  error,
}: {
  whatsappAccountId: number;
  templateId: number;
  field: UseFormRegisterReturn;
  error?: string;
}) {
  const templates = useAccountTemplates(whatsappAccountId);
  if (templates.isPending) return <Spinner className="py-6" />;
  const list = templates.data ?? [];
  const selected = list.find((t) => t.id === templateId);
  return (
    <div className="space-y-4">
      {list.length === 0 ? (
        <div role="alert" className="flex gap-3 rounded-md border border-yellow-300 bg-yellow-50 px-4 py-3 text-sm text-yellow-800">
          <AlertTriangle className="h-5 w-5 shrink-0" />
          <p>
            No hay templates disponibles para esta cuenta de WhatsApp. Sincroniza los templates desde la sección{' '}
            <Link to="/templates" className="font-medium underline">
              Templates
            </Link>{' '}
            antes de crear la campaña.
          </p>
        </div>
      ) : (
        <Select label="Template *" id="template_id" error={error} {...field}>
          <option value="">Selecciona un template</option>
          {list.map((t) => (
            <option key={t.id} value={t.id} disabled={t.status !== 'approved'}>
              {templateOptionLabel(t)}
            </option>
          ))}
        </Select>
      )}
      {selected && <TemplatePreview template={selected} />}
    </div>
  );
}

/** Spec: a preview shows each component's type and text. */
export function TemplatePreview({ template }: { template: Pick<Template, 'components'> }) {
  return (
    <div className="rounded-md border border-gray-200 bg-gray-50 p-4" data-testid="template-preview">
      <h3 className="mb-3 text-sm font-medium text-gray-700">Vista previa</h3>
      <div className="space-y-3">
        {template.components.map((c, i) => (
          <div key={i}>
            <p className="text-xs font-semibold tracking-wide text-gray-500 uppercase">{c.type}</p>
            <p className="text-sm whitespace-pre-wrap text-gray-800">{c.text ?? (c.format ? `[${c.format}]` : '')}</p>
          </div>
        ))}
      </div>
    </div>
  );
}
