import type { Template } from '@masivo/contract/templates';
import {
  HEADER_MEDIA_KEY,
  MEDIA_RULES,
  isTextHeader,
  saveMappingsSchema,
  type AvailableVariable,
  type MediaHeaderFormat,
  type SaveMappingsInput,
  type TemplateVariableSlot,
  type VariableMapping,
} from '@masivo/contract/variables';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { FormActions } from '@/components/ui/form-actions';
import { Modal } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { errorMessage } from '@/lib/api-client';
import { useErrorToast } from '@/lib/use-error-toast';
import { useSaveMappings, useTemplateVariables } from '../api/template-variables';
import { buttonsOf, headerFormatOf, textOf } from './template-parts';
import { TemplatePreview } from './template-preview';
import { FALLBACK_VARIABLES, sampleValue } from './variable-samples';

/** The select's value for «Valor fijo»: the text input then holds the value every message gets. */
const STATIC = '__static__';
const CONTROL = 'block w-full rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500';

type Choice = { sourceField: string; defaultValue: string };

/**
 * Spec: one select of available variables per slot, a live preview and save/cancel. A slot is
 * filled from a contact field (the optional default covers an empty field) or with a fixed
 * value; a media header takes a link or a media id, a button its URL suffix or coupon code.
 */
export function VariableMappingDialog({ template, onClose }: { template: Template; onClose: () => void }) {
  const query = useTemplateVariables(template.id);
  useErrorToast(query.error, 'Error al cargar las variables');
  return (
    <Modal open onClose={onClose} title={`Configurar Variables - ${template.name}`} wide>
      {query.isLoading ? (
        <Spinner className="py-12" />
      ) : query.isError ? (
        <p role="alert" className="py-8 text-center text-sm text-red-600">
          {errorMessage(query.error, 'Error al cargar las variables')}
        </p>
      ) : (
        <MappingForm
          key={query.dataUpdatedAt}
          template={template}
          slots={query.data?.variables ?? []}
          available={query.data?.availableVariables ?? FALLBACK_VARIABLES}
          saved={query.data?.mappings ?? []}
          savedOptOut={query.data?.optOutButtons ?? []}
          onClose={onClose}
        />
      )}
    </Modal>
  );
}

function slotTitle(slot: TemplateVariableSlot): string {
  if (slot.kind !== 'text') return slot.label;
  const token = `{{${slot.name ?? slot.placeholder}}}`;
  return slot.component === 'header' ? `Encabezado ${token}` : `Variable ${token}`;
}

function staticPlaceholder(slot: TemplateVariableSlot): string {
  if (slot.kind === 'media') return 'https://... o id de medio';
  if (slot.kind === 'location') return 'lat,lng;nombre;dirección';
  if (slot.kind === 'coupon_code') return 'Código del cupón';
  if (slot.kind === 'url_suffix') return 'Final de la URL';
  return 'Valor fijo';
}

function slotHint(slot: TemplateVariableSlot): string | null {
  if (slot.kind === 'media' && slot.format && slot.format in MEDIA_RULES) {
    return `Un enlace https público o un id de medio: ${MEDIA_RULES[slot.format as MediaHeaderFormat].label}. Desde un campo del contacto, el campo debe contener el enlace.`;
  }
  if (slot.kind === 'location') return 'Latitud y longitud, opcionalmente con nombre y dirección: -34.6,-58.4;Sucursal Centro;Av. Corrientes 1234';
  if (slot.kind === 'url_suffix') return 'Se agrega al final de la URL del botón.';
  if (slot.kind === 'coupon_code') return 'El código que el botón copia (hasta 15 caracteres).';
  return null;
}

function MappingForm({
  template,
  slots,
  available,
  saved,
  savedOptOut,
  onClose,
}: {
  template: Template;
  slots: TemplateVariableSlot[];
  available: AvailableVariable[];
  saved: VariableMapping[];
  savedOptOut: number[];
  onClose: () => void;
}) {
  const [choices, setChoices] = useState<Record<string, Choice>>(() =>
    Object.fromEntries(
      saved.map((m) => [m.templateVariable, { sourceField: m.sourceType === 'static' ? STATIC : m.sourceField, defaultValue: m.defaultValue }]),
    ),
  );
  const [optOut, setOptOut] = useState<number[]>(savedOptOut);
  const [problems, setProblems] = useState<string[]>([]);
  const save = useSaveMappings();
  const set = (key: string, patch: Partial<Choice>) => {
    setProblems([]);
    setChoices((c) => ({ ...c, [key]: { ...(c[key] ?? { sourceField: '', defaultValue: '' }), ...patch } }));
  };

  /** What the preview shows for a slot: the fixed value, or a sample of the chosen field. */
  const previewValue = (slot: TemplateVariableSlot) => {
    const choice = choices[slot.key];
    if (!choice?.sourceField) return undefined;
    if (choice.sourceField === STATIC) return choice.defaultValue.trim() || undefined;
    return sampleValue(choice.sourceField, available);
  };
  const values = { header: {} as Record<string, string>, body: {} as Record<string, string> };
  const buttonValues: Record<number, string> = {};
  for (const slot of slots) {
    const v = previewValue(slot);
    if (v === undefined || slot.kind === 'media' || slot.kind === 'location') continue;
    if (slot.component === 'button') buttonValues[slot.index ?? 0] = v;
    else values[slot.component][slot.name ?? String(slot.placeholder)] = v;
  }
  const mediaSlot = slots.find((s) => s.key === HEADER_MEDIA_KEY);
  const buttons = buttonsOf(template.components);
  const quickReplies = buttons.map((b, index) => ({ ...b, index })).filter((b) => b.type === 'QUICK_REPLY');
  const contactFields = available.filter((v) => v.category === 'contact');
  const customFields = available.filter((v) => v.category === 'custom');
  const leadFields = available.filter((v) => v.category === 'lead');

  const onSave = async () => {
    const input: SaveMappingsInput = {
      mappings: slots
        .filter((s) => choices[s.key]?.sourceField)
        .map((s) => {
          const c = choices[s.key]!;
          return c.sourceField === STATIC
            ? { templateVariable: s.key, sourceType: 'static' as const, sourceField: '', defaultValue: c.defaultValue.trim() }
            : { templateVariable: s.key, sourceType: 'contact' as const, sourceField: c.sourceField, defaultValue: c.defaultValue.trim() };
        }),
      optOutButtons: optOut.filter((i) => quickReplies.some((q) => q.index === i)).sort((a, b) => a - b),
    };
    // The same rules the server applies, so a blank fixed value is named before the request.
    const parsed = saveMappingsSchema.safeParse(input);
    if (!parsed.success) return setProblems([...new Set(parsed.error.issues.map((i) => i.message))]);
    try {
      await save.mutateAsync({ templateId: template.id, input });
      toast.success('Configuración de variables guardada exitosamente');
      onClose();
    } catch (err) {
      // The server checks links (https, type, size): its Spanish reason stays in the dialog.
      const message = errorMessage(err, 'Error guardando configuración');
      setProblems([message]);
      toast.error(message);
    }
  };

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-5">
      <div className="min-w-0 space-y-4 lg:col-span-3">
        {slots.length === 0 && <p className="text-sm text-gray-500">Esta plantilla no tiene variables.</p>}
        {slots.map((slot) => {
          const choice = choices[slot.key];
          const fixed = choice?.sourceField === STATIC;
          const hint = slotHint(slot);
          return (
            <div key={slot.key} className="rounded-md border border-gray-200 p-3" data-testid="mapping-slot">
              <label htmlFor={`map-${slot.key}`} className="block text-sm font-medium text-gray-700">
                {slotTitle(slot)}
              </label>
              <div className="mt-1 grid grid-cols-1 gap-2 sm:grid-cols-2">
                <select
                  id={`map-${slot.key}`}
                  aria-label={`Campo para ${slot.label}`}
                  value={choice?.sourceField ?? ''}
                  onChange={(e) => set(slot.key, { sourceField: e.target.value })}
                  className={CONTROL}
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
                  {leadFields.length > 0 && (
                    <optgroup label="Lead (campañas automáticas)">
                      {leadFields.map((v) => (
                        <option key={v.key} value={v.key}>
                          {v.displayName}
                        </option>
                      ))}
                    </optgroup>
                  )}
                  {/* Last, so the first choice below the prompt stays a contact field. */}
                  <optgroup label="Otro">
                    <option value={STATIC}>Valor fijo</option>
                  </optgroup>
                </select>
                <input
                  aria-label={fixed ? `Valor fijo para ${slot.label}` : `Valor por defecto para ${slot.label}`}
                  aria-describedby={hint ? `map-${slot.key}-hint` : undefined}
                  placeholder={fixed ? staticPlaceholder(slot) : 'Valor por defecto (opcional)'}
                  value={choice?.defaultValue ?? ''}
                  onChange={(e) => set(slot.key, { defaultValue: e.target.value })}
                  className={CONTROL}
                />
              </div>
              {hint && (
                <p id={`map-${slot.key}-hint`} className="mt-1 text-xs text-gray-500">
                  {hint}
                </p>
              )}
            </div>
          );
        })}
        {quickReplies.length > 0 && (
          <fieldset className="rounded-md border border-gray-200 p-3">
            <legend className="px-1 text-sm font-medium text-gray-700">Respuestas rápidas</legend>
            <p className="mb-2 text-xs text-gray-500">Quien toque un botón marcado como «Baja» pasa a la lista negra y no recibe más campañas.</p>
            {quickReplies.map((b) => (
              <label key={b.index} className="flex min-h-6 items-center gap-2 text-sm text-gray-700 max-sm:min-h-11">
                <input
                  type="checkbox"
                  checked={optOut.includes(b.index)}
                  onChange={(e) => setOptOut((list) => (e.target.checked ? [...list, b.index] : list.filter((i) => i !== b.index)))}
                />
                {`Marcar «${b.text}» como Baja`}
              </label>
            ))}
          </fieldset>
        )}
        {problems.length > 0 && (
          <div role="alert" className="rounded-md bg-red-50 p-3 text-sm text-red-700" data-testid="mapping-errors">
            <ul className="list-inside list-disc">
              {problems.map((m) => (
                <li key={m}>{m}</li>
              ))}
            </ul>
          </div>
        )}
      </div>
      <div className="min-w-0 space-y-3 lg:col-span-2">
        <p className="text-sm font-medium text-gray-700">Vista previa</p>
        <TemplatePreview
          parts={{
            header: template.components.find((c) => isTextHeader(c))?.text ?? null,
            headerMedia: mediaSlot ? { format: headerFormatOf(template.components), value: previewValue(mediaSlot) ?? null } : null,
            body: textOf(template.components, 'BODY') ?? '',
            footer: textOf(template.components, 'FOOTER'),
            buttons,
          }}
          values={values}
          buttonValues={buttonValues}
        />
        <p className="text-xs text-gray-500">Con datos de ejemplo; si el campo de un contacto está vacío se usa el valor por defecto.</p>
      </div>
      <FormActions onCancel={onClose} pending={save.isPending} label={'Guardar Configuración'} pendingLabel={'Guardando...'} onSubmit={onSave} className="border-t border-gray-200 pt-4 lg:col-span-5" />
    </div>
  );
}
