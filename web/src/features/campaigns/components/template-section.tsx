import type { Template } from '@masivo/contract/templates';
import { AlertTriangle } from 'lucide-react';
import { useQueries } from '@tanstack/react-query';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { Link } from 'react-router';
import { Select } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { templateVariablesQueryOptions, useAccountTemplates } from '@/api/templates';
import { formatDateTime } from '@/lib/format';
import { categoryChangeNotice, templateStatusLabel } from '@/lib/template-labels';
import { templateVariableSlots, unmappedSlots } from '@masivo/contract/variables';
import type { WhatsAppAccount } from '@masivo/contract/whatsapp-accounts';
import { CampaignRouteNotice } from './campaign-route-notice';

/**
 * Why a template cannot be used for a campaign, as the server would refuse it (not approved,
 * variables without a mapping), or null when it can. `unmapped` is undefined while unknown.
 */
export function templateBlocker(t: Pick<Template, 'status'> & Partial<Pick<Template, 'incompatible_reason'>>, unmapped: string[] | undefined): string | null {
  if (t.incompatible_reason) return t.incompatible_reason.replace(/^No compatible/, 'no compatible');
  if (t.status !== 'approved') return `no aprobada (${templateStatusLabel(t.status).toLowerCase()})`;
  if (unmapped?.length) return `variables sin configurar: ${unmapped.join(', ')}`;
  return null;
}

/** Spec: the select shows name, language and category; a template that cannot be sent says why. */
export const templateOptionLabel = (t: Pick<Template, 'name' | 'language' | 'category' | 'status'> & Partial<Pick<Template, 'incompatible_reason'>>, unmapped?: string[]) => {
  const blocker = templateBlocker(t, unmapped);
  return `${t.name} (${t.language}) - ${t.category}` + (blocker ? ` · ${blocker}` : '');
};

/** The unmapped variable labels of each approved template with variables, once loaded. */
export function useUnmappedVariables(list: Template[]): Map<number, string[]> {
  // Media headers and button suffixes need a mapping too, not only text placeholders.
  const candidates = list.filter((t) => t.status === 'approved' && t.campaign_compatible !== false && templateVariableSlots(t.components, t.parameter_format).length > 0);
  const results = useQueries({ queries: candidates.map((t) => templateVariablesQueryOptions(t.id)) });
  const unmapped = new Map<number, string[]>();
  candidates.forEach((t, i) => {
    const data = results[i]?.data;
    if (!data) return;
    // The server's rule: a fixed value counts by its text, a contact field by its name.
    unmapped.set(t.id, unmappedSlots(data.variables, data.mappings).map((v) => v.label));
  });
  return unmapped;
}

export function TemplateSection({
  whatsappAccountId,
  templateId,
  field,
  error,
  account,
}: {
  whatsappAccountId: number;
  templateId: number;
  field: UseFormRegisterReturn;
  error?: string;
  /** The sending number: its Marketing Messages API state decides the route shown. */
  account?: WhatsAppAccount;
}) {
  const templates = useAccountTemplates(whatsappAccountId);
  const list = templates.data ?? [];
  const unmapped = useUnmappedVariables(list);
  if (templates.isPending) return <Spinner className="py-6" />;
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
            <option key={t.id} value={t.id} disabled={templateBlocker(t, unmapped.get(t.id)) !== null}>
              {templateOptionLabel(t, unmapped.get(t.id))}
            </option>
          ))}
        </Select>
      )}
      {selected && <TemplateRiskNotice category_change={selected.category_change} status_detail={selected.status_detail} />}
      {selected && <CampaignRouteNotice template={selected} account={account} />}
      {selected && <TemplatePreview template={selected} />}
    </div>
  );
}

/**
 * What Meta announced about the template that changes the campaign's cost or delivery: an
 * impending category change, or a quality flag (a paused template cannot be selected at all).
 */
export function TemplateRiskNotice({
  category_change,
  status_detail,
}: {
  category_change: Template['category_change'] | undefined;
  status_detail: string | null | undefined;
}) {
  const notices = [
    categoryChangeNotice(category_change, formatDateTime),
    status_detail === 'FLAGGED' ? 'Meta marcó esta plantilla por baja calidad: si sigue así la pausará.' : null,
  ].filter((n): n is string => n !== null);
  if (!notices.length) return null;
  return (
    <div role="status" data-testid="template-risk" className="flex gap-3 rounded-md border border-yellow-300 bg-yellow-50 px-4 py-3 text-sm text-yellow-800">
      <AlertTriangle className="h-5 w-5 shrink-0" aria-hidden="true" />
      <div className="space-y-1">
        {notices.map((n) => (
          <p key={n}>{n}</p>
        ))}
      </div>
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
