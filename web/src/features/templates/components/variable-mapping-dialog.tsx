import type { Template } from '@masivo/contract/templates';
import { isTextHeader, type AvailableVariable, type TemplateVariableSlot } from '@masivo/contract/variables';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Modal } from '../../../components/ui/modal';
import { Spinner } from '../../../components/ui/spinner';
import { errorMessage } from '../../../lib/api-client';
import { useSaveMappings, useTemplateVariables } from '../api/template-variables';
import { TemplatePreview } from './template-preview';
import { FALLBACK_VARIABLES, sampleValue } from './variable-samples';
import { FormActions } from '../../../components/ui/form-actions';

type Choice = { sourceField: string; defaultValue: string };

/**
 * Spec: one select of available variables per placeholder of the body and of a TEXT
 * header, a live preview and save/cancel. The optional default is what a contact whose
 * field is empty receives.
 */
export function VariableMappingDialog({ template, onClose }: { template: Template; onClose: () => void }) {
  const query = useTemplateVariables(template.id);
  return (
    <Modal open onClose={onClose} title={`Configurar Variables - ${template.name}`} wide>
      {query.isLoading ? (
        <Spinner className="py-12" />
      ) : (
        <MappingForm
          key={query.dataUpdatedAt}
          template={template}
          slots={query.data?.variables ?? []}
          available={query.data?.availableVariables ?? FALLBACK_VARIABLES}
          saved={query.data?.mappings ?? []}
          onClose={onClose}
        />
      )}
    </Modal>
  );
}

function MappingForm({
  template,
  slots,
  available,
  saved,
  onClose,
}: {
  template: Template;
  slots: TemplateVariableSlot[];
  available: AvailableVariable[];
  saved: Array<{ templateVariable: string; sourceField: string; defaultValue: string }>;
  onClose: () => void;
}) {
  const [choices, setChoices] = useState<Record<string, Choice>>(() =>
    Object.fromEntries(saved.map((m) => [m.templateVariable, { sourceField: m.sourceField, defaultValue: m.defaultValue }])),
  );
  const save = useSaveMappings();
  const set = (key: string, patch: Partial<Choice>) =>
    setChoices((c) => ({ ...c, [key]: { ...(c[key] ?? { sourceField: '', defaultValue: '' }), ...patch } }));

  const previewValue = (slot: TemplateVariableSlot) => {
    const choice = choices[slot.key];
    return choice?.sourceField ? sampleValue(choice.sourceField, available) : undefined;
  };
  const values = { header: {} as Record<number, string>, body: {} as Record<number, string> };
  for (const slot of slots) {
    const v = previewValue(slot);
    if (v !== undefined) values[slot.component][slot.placeholder] = v;
  }
  const header = template.components.find((c) => isTextHeader(c))?.text ?? null;
  const body = template.components.find((c) => c.type.toUpperCase() === 'BODY')?.text ?? '';
  const footer = template.components.find((c) => c.type.toUpperCase() === 'FOOTER')?.text ?? null;
  const contactFields = available.filter((v) => v.category === 'contact');
  const customFields = available.filter((v) => v.category === 'custom');

  const onSave = async () => {
    const mappings = slots
      .filter((s) => choices[s.key]?.sourceField)
      .map((s) => ({
        templateVariable: s.key,
        sourceType: 'contact' as const,
        sourceField: choices[s.key]!.sourceField,
        defaultValue: choices[s.key]!.defaultValue.trim(),
      }));
    try {
      await save.mutateAsync({ templateId: template.id, input: { mappings } });
      toast.success('Configuración de variables guardada exitosamente');
      onClose();
    } catch (err) {
      toast.error(errorMessage(err, 'Error guardando configuración'));
    }
  };

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-5">
      <div className="space-y-4 lg:col-span-3">
        {slots.length === 0 && <p className="text-sm text-gray-500">Esta plantilla no tiene variables.</p>}
        {slots.map((slot) => (
          <div key={slot.key} className="rounded-md border border-gray-200 p-3">
            <label htmlFor={`map-${slot.key}`} className="block text-sm font-medium text-gray-700">
              {slot.component === 'header' ? `Encabezado {{${slot.placeholder}}}` : `Variable {{${slot.placeholder}}}`}
            </label>
            <div className="mt-1 grid grid-cols-1 gap-2 sm:grid-cols-2">
              <select
                id={`map-${slot.key}`}
                aria-label={`Campo para ${slot.label}`}
                value={choices[slot.key]?.sourceField ?? ''}
                onChange={(e) => set(slot.key, { sourceField: e.target.value })}
                className="block w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500"
              >
                <option value="">-- Seleccionar variable --</option>
                <optgroup label="Contacto">
                  {contactFields.map((v) => (
                    <option key={v.key} value={v.key}>
                      {v.displayName}
                    </option>
                  ))}
                </optgroup>
                {customFields.length > 0 && (
                  <optgroup label="Campos personalizados">
                    {customFields.map((v) => (
                      <option key={v.key} value={v.key}>
                        {v.displayName}
                      </option>
                    ))}
                  </optgroup>
                )}
              </select>
              <input
                aria-label={`Valor por defecto para ${slot.label}`}
                placeholder="Valor por defecto (opcional)"
                value={choices[slot.key]?.defaultValue ?? ''}
                onChange={(e) => set(slot.key, { defaultValue: e.target.value })}
                className="block w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500"
              />
            </div>
          </div>
        ))}
      </div>
      <div className="space-y-3 lg:col-span-2">
        <p className="text-sm font-medium text-gray-700">Vista previa</p>
        <TemplatePreview parts={{ header, body, footer }} values={values} />
        <p className="text-xs text-gray-500">Con datos de ejemplo; si el campo de un contacto está vacío se usa el valor por defecto.</p>
      </div>
      <FormActions onCancel={onClose} pending={save.isPending} label={'Guardar Configuración'} pendingLabel={'Guardando...'} onSubmit={onSave} className="border-t border-gray-200 pt-4 lg:col-span-5" />
    </div>
  );
}
