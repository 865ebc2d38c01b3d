import type { TemplateComponentView } from '@masivo/contract/templates';
import { ANY_PLACEHOLDER_PATTERN, templateVariableSlots } from '@masivo/contract/variables';

/** A button as Meta lists it in a template's BUTTONS component. */
export interface TemplateButton {
  type: string;
  text: string;
  url?: string;
  phone_number?: string;
  example?: unknown;
}

export const HEADER_FORMAT_LABELS: Record<string, string> = {
  TEXT: 'Texto',
  IMAGE: 'Imagen',
  VIDEO: 'Video',
  DOCUMENT: 'Documento',
  LOCATION: 'Ubicación',
  GIF: 'GIF',
};

export const BUTTON_TYPE_LABELS: Record<string, string> = {
  QUICK_REPLY: 'Respuesta rápida',
  URL: 'Enlace',
  PHONE_NUMBER: 'Llamar',
  COPY_CODE: 'Copiar código',
  FLOW: 'Flujo',
  OTP: 'Código de verificación',
  CATALOG: 'Catálogo',
  MPM: 'Productos',
};

const byType = (components: TemplateComponentView[], type: string) => components.find((c) => c.type.toUpperCase() === type);

export const headerOf = (components: TemplateComponentView[]) => byType(components, 'HEADER');
export const headerFormatOf = (components: TemplateComponentView[]) => (headerOf(components)?.format ?? 'TEXT').toUpperCase();
export const textOf = (components: TemplateComponentView[], type: 'BODY' | 'FOOTER') => byType(components, type)?.text ?? null;

export function buttonsOf(components: TemplateComponentView[]): TemplateButton[] {
  return ((byType(components, 'BUTTONS')?.buttons ?? []) as Array<Partial<TemplateButton> | null>).map((b) => ({
    ...(b ?? {}),
    type: String(b?.type ?? '').toUpperCase(),
    text: String(b?.text ?? ''),
  }));
}

/** `{{1}}` and `{{first_name}}` replaced by their value; placeholders without one stay visible. */
export function fillPlaceholders(text: string, values: Record<string, string> = {}): string {
  return text.replace(ANY_PLACEHOLDER_PATTERN, (whole, name: string) => values[name] || whole);
}

/** The mapping dialog has something to offer: a slot to fill, or a quick reply to mark as «Baja». */
export const isConfigurable = (t: { components: TemplateComponentView[]; parameter_format?: string | null }) =>
  templateVariableSlots(t.components, t.parameter_format).length > 0 || buttonsOf(t.components).some((b) => b.type === 'QUICK_REPLY');
