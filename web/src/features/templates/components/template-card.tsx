import type { Template } from '@masivo/contract/templates';
import { AlertTriangle, Send, Settings, Trash2 } from 'lucide-react';
import toast from 'react-hot-toast';
import { Button } from '@/components/ui/button';
import { errorMessage } from '@/lib/api-client';
import { formatDate, formatDateTime } from '@/lib/format';
import { categoryChangeNotice, templateLanguageLabel } from '@/lib/template-labels';
import { useSubmitTemplate } from '../api/create-template';
import { useDeleteTemplate } from '../api/delete-template';
import { announceSubmission } from './submission-toast';
import { CategoryBadge, StatusBadge } from './template-badges';
import { TemplateComponents } from './template-components';
import { TemplateTtl } from './template-ttl';
import { isConfigurable } from './template-parts';
import { Can, useMember } from '@/lib/use-member';

export function TemplateCard({ template, onConfigure }: { template: Template; onConfigure: (template: Template) => void }) {
  const remove = useDeleteTemplate();
  const resubmit = useSubmitTemplate();
  const mayManage = useMember().can('templates.manage');

  const onDelete = async () => {
    if (!window.confirm(`¿Estás seguro de que quieres eliminar el template "${template.name}"?`)) return;
    try {
      await remove.mutateAsync(template.id);
      toast.success('Template eliminado exitosamente');
    } catch (err) {
      toast.error(errorMessage(err, 'Error eliminando template'));
    }
  };

  const onResubmit = async () => {
    try {
      announceSubmission(await resubmit.mutateAsync(template.id));
    } catch (err) {
      toast.error(errorMessage(err, 'Error creando plantilla'));
    }
  };

  const categoryNotice = categoryChangeNotice(template.category_change, formatDateTime);

  return (
    <li className="p-5" data-testid="template-item">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <div className="flex flex-wrap items-center gap-2">
            <h3 className="font-mono text-base font-semibold text-gray-900">{template.name}</h3>
            <CategoryBadge category={template.category} />
            <StatusBadge status={template.status} detail={template.status_detail} />
          </div>
          <p className="mt-1 text-sm text-gray-500">
            Idioma: {templateLanguageLabel(template.language)} · Creado: {formatDate(template.created_at)}
          </p>
        </div>
        <div className="flex gap-2">
          {mayManage && !template.meta_id && (
            <Button size="sm" variant="secondary" onClick={onResubmit} disabled={resubmit.isPending}>
              <Send className="h-4 w-4" /> {resubmit.isPending ? 'Enviando...' : 'Enviar a Facebook'}
            </Button>
          )}
          {mayManage && isConfigurable(template) && (
            <Button size="sm" variant="secondary" onClick={() => onConfigure(template)}>
              <Settings className="h-4 w-4" /> Configurar Variables
            </Button>
          )}
          <Can permission="templates.manage">
            <Button size="sm" variant="ghost" onClick={onDelete} disabled={remove.isPending} aria-label={`Eliminar ${template.name}`}>
              <Trash2 className="h-4 w-4 text-red-600" />
            </Button>
          </Can>
        </div>
      </div>

      {categoryNotice && (
        <p className="mt-3 flex gap-2 rounded-md bg-yellow-50 p-3 text-sm text-yellow-800" data-testid="template-category-change">
          <AlertTriangle className="h-4 w-4 shrink-0" aria-hidden="true" />
          <span>{categoryNotice}</span>
        </p>
      )}

      {template.incompatible_reason && (
        <p className="mt-3 flex gap-2 rounded-md bg-yellow-50 p-3 text-sm text-yellow-800" data-testid="template-incompatible">
          <AlertTriangle className="h-4 w-4 shrink-0" aria-hidden="true" />
          <span>{template.incompatible_reason}</span>
        </p>
      )}

      <TemplateComponents template={template} />
      <TemplateTtl template={template} mayManage={mayManage} />

      {template.rejection_reason && (
        <p className="mt-3 rounded-md bg-red-50 p-3 text-sm text-red-700">
          <span className="font-medium">Motivo de rechazo:</span> {template.rejection_reason}
        </p>
      )}
      {template.submission_error && (
        <p className="mt-3 rounded-md bg-yellow-50 p-3 text-sm text-yellow-800">
          <span className="font-medium">No se pudo enviar a Facebook:</span> {template.submission_error}
        </p>
      )}
    </li>
  );
}
