import { placeholdersOf } from '@masivo/contract/variables';
import type { TemplateComponent } from '../../db/schema/index';

export interface TemplateTexts {
  header: string;
  body: string;
  footer: string;
}
export interface TemplateSamples {
  header: string[];
  body: string[];
}

/**
 * The components as Meta wants them at creation: header and footer only when present,
 * each placeholder with its example (Meta refuses parameters without examples).
 */
export function metaComponents(texts: TemplateTexts, samples: TemplateSamples): TemplateComponent[] {
  const components: TemplateComponent[] = [];
  if (texts.header) {
    const n = placeholdersOf(texts.header).length;
    components.push({
      type: 'HEADER',
      format: 'TEXT',
      text: texts.header,
      ...(n > 0 && { example: { header_text: samples.header.slice(0, n).map((s) => s.trim()) } }),
    });
  }
  const n = placeholdersOf(texts.body).length;
  components.push({
    type: 'BODY',
    text: texts.body,
    ...(n > 0 && { example: { body_text: [samples.body.slice(0, n).map((s) => s.trim())] } }),
  });
  if (texts.footer) components.push({ type: 'FOOTER', text: texts.footer });
  return components;
}

/** The texts of a create payload: trimmed, header and footer dropped when blank. */
export function textsOf(components: Array<{ type: string; text?: string }>): TemplateTexts {
  const text = (type: string) => components.find((c) => c.type === type)?.text?.trim() ?? '';
  return { header: text('HEADER'), body: text('BODY'), footer: text('FOOTER') };
}

/** Strip what Meta does not accept on create (nothing beyond type/format/text/example/buttons). */
export function submittable(components: TemplateComponent[]): Array<Record<string, unknown>> {
  return components.map((c) => ({ ...c }));
}
