import type { Template } from '@masivo/contract/templates';
import { isNamedTemplate, placeholderNamesOf } from '@masivo/contract/variables';
import { Copy, ExternalLink, FileText, Image, LayoutGrid, MapPin, Phone, Reply, Timer, Type, Video } from 'lucide-react';
import { BUTTON_TYPE_LABELS, HEADER_FORMAT_LABELS, buttonsOf } from './template-parts';

const FORMAT_ICONS = { TEXT: Type, IMAGE: Image, VIDEO: Video, DOCUMENT: FileText, LOCATION: MapPin, GIF: Video } as Record<string, typeof Type>;
const BUTTON_ICONS = { URL: ExternalLink, PHONE_NUMBER: Phone, COPY_CODE: Copy, QUICK_REPLY: Reply } as Record<string, typeof Type>;

/** Spec: each component's type, format and text; the header's kind and the buttons as chips. */
export function TemplateComponents({ template }: { template: Pick<Template, 'components' | 'parameter_format'> }) {
  const named = isNamedTemplate(template.components, template.parameter_format);
  const names = named ? [...new Set(template.components.flatMap((c) => placeholderNamesOf(c.text)))] : [];
  return (
    <div className="mt-3 space-y-2">
      {named && (
        <p className="flex flex-wrap items-center gap-1.5 text-xs text-gray-600" data-testid="named-placeholders">
          <span className="font-medium">Variables con nombre:</span>
          {names.map((n) => (
            <code key={n} className="rounded bg-indigo-50 px-1.5 py-0.5 text-indigo-800">{`{{${n}}}`}</code>
          ))}
        </p>
      )}
      {template.components.map((c, i) => (
        <ComponentBlock key={i} component={c} />
      ))}
    </div>
  );
}

function ComponentBlock({ component: c }: { component: Template['components'][number] }) {
  const type = c.type.toUpperCase();
  const format = (c.format ?? 'TEXT').toUpperCase();
  if (type === 'BUTTONS') {
    const buttons = buttonsOf([c]);
    return (
      <div className="rounded-md bg-gray-50 p-3 text-sm">
        <p className="text-xs font-semibold text-gray-500 uppercase">{c.type}</p>
        <ul className="mt-1 flex flex-wrap gap-2" aria-label="Botones de la plantilla">
          {buttons.map((b, i) => {
            const Icon = BUTTON_ICONS[b.type] ?? Reply;
            return (
              <li
                key={i}
                data-testid="template-button-chip"
                title={b.url ?? b.phone_number ?? undefined}
                className="inline-flex max-w-full items-center gap-1 rounded-full border border-sky-200 bg-white px-3 py-1 text-xs font-medium text-sky-800"
              >
                <Icon className="h-3.5 w-3.5 shrink-0" aria-hidden="true" />
                <span className="truncate">{b.text || b.type}</span>
                <span className="sr-only"> ({BUTTON_TYPE_LABELS[b.type] ?? b.type})</span>
              </li>
            );
          })}
        </ul>
      </div>
    );
  }
  if (type === 'CAROUSEL' || type === 'LIMITED_TIME_OFFER') {
    const cards = Array.isArray(c.cards) ? c.cards.length : 0;
    const Icon = type === 'CAROUSEL' ? LayoutGrid : Timer;
    return (
      <div className="flex items-center gap-2 rounded-md bg-gray-50 p-3 text-sm text-gray-700">
        <Icon className="h-4 w-4" aria-hidden="true" />
        {type === 'CAROUSEL' ? `Carrusel de ${cards} tarjetas` : 'Oferta por tiempo limitado'}
      </div>
    );
  }
  const FormatIcon = FORMAT_ICONS[format] ?? FileText;
  return (
    <div className="rounded-md bg-gray-50 p-3 text-sm">
      <p className="flex items-center gap-1.5 text-xs font-semibold text-gray-500 uppercase">
        {c.type}
        {type === 'HEADER' && (
          <span className="inline-flex items-center gap-1 rounded-full bg-white px-2 py-0.5 font-medium text-gray-700 normal-case" data-testid="header-format">
            <FormatIcon className="h-3.5 w-3.5" aria-hidden="true" />
            {HEADER_FORMAT_LABELS[format] ?? format}
          </span>
        )}
      </p>
      {c.text && <p className="mt-1 break-words whitespace-pre-wrap text-gray-800">{c.text}</p>}
    </div>
  );
}
