import type { createTemplateSchema } from '@masivo/contract/templates';
import { URL_SUFFIX_PLACEHOLDER } from '@masivo/contract/templates';
import { placeholderNamesOf, placeholdersOf } from '@masivo/contract/variables';
import type { z } from 'zod';
import type { TemplateComponent } from '../../db/schema/index';

type CreateInput = z.output<typeof createTemplateSchema>;
type ButtonInput = NonNullable<CreateInput['components'][number]['buttons']>[number];

/**
 * The components as Meta's template-creation reference wants them: header and footer only
 * when present, every placeholder with its example (Meta refuses parameters without one),
 * named examples as `{param_name, example}` pairs, a media header by its upload handle, and
 * each button with only the keys its type takes.
 */
export function metaComponents(input: Pick<CreateInput, 'components' | 'templateSamples' | 'parameter_format'>): TemplateComponent[] {
  const named = input.parameter_format === 'NAMED';
  const find = (type: string) => input.components.find((c) => c.type === type);
  const samples = input.templateSamples;
  const out: TemplateComponent[] = [];

  const header = find('HEADER');
  const format = header?.format ?? 'TEXT';
  if (header && format !== 'TEXT' && header.header_handle) {
    out.push({ type: 'HEADER', format, example: { header_handle: [header.header_handle] } });
  } else if (header?.text.trim()) {
    const text = header.text.trim();
    out.push({ type: 'HEADER', format: 'TEXT', text, ...textExample(text, samples.header, named, 'header') });
  }
  const body = find('BODY')!.text.trim();
  out.push({ type: 'BODY', text: body, ...textExample(body, samples.body, named, 'body') });
  const footer = find('FOOTER')?.text.trim();
  if (footer) out.push({ type: 'FOOTER', text: footer });
  const buttons = find('BUTTONS')?.buttons ?? [];
  if (buttons.length) out.push({ type: 'BUTTONS', buttons: buttons.map(metaButton) });
  return out;
}

function textExample(text: string, list: string[], named: boolean, where: 'header' | 'body') {
  if (named) {
    const names = placeholderNamesOf(text);
    if (!names.length) return {};
    const pairs = names.map((param_name, i) => ({ param_name, example: (list[i] ?? '').trim() }));
    return { example: where === 'header' ? { header_text_named_params: pairs } : { body_text_named_params: pairs } };
  }
  const n = placeholdersOf(text).length;
  if (!n) return {};
  const values = list.slice(0, n).map((s) => s.trim());
  return { example: where === 'header' ? { header_text: values } : { body_text: [values] } };
}

function metaButton(b: ButtonInput): Record<string, unknown> {
  switch (b.type) {
    case 'QUICK_REPLY':
      return { type: 'QUICK_REPLY', text: b.text };
    case 'URL':
      // Meta's example for a dynamic URL is the whole URL with the sample suffix in place.
      return b.url.endsWith(URL_SUFFIX_PLACEHOLDER)
        ? { type: 'URL', text: b.text, url: b.url, example: [b.url.slice(0, -URL_SUFFIX_PLACEHOLDER.length) + b.example] }
        : { type: 'URL', text: b.text, url: b.url };
    case 'PHONE_NUMBER':
      return { type: 'PHONE_NUMBER', text: b.text, phone_number: b.phone_number.replace(/[\s\-+]/g, '') }; // Meta's examples write digits only
    case 'COPY_CODE':
      return { type: 'COPY_CODE', example: b.example };
  }
}

/** Everything stored was built for Meta's create call (or came from Meta): sent as kept. */
export function submittable(components: TemplateComponent[]): Array<Record<string, unknown>> {
  return components.map((c) => ({ ...c }));
}
