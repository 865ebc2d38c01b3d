import { renderText } from '@masivo/contract/variables';

export interface PreviewParts {
  header?: string | null;
  body: string;
  footer?: string | null;
}

/** A WhatsApp-like bubble; unfilled placeholders stay visible as {{n}}. */
export function TemplatePreview({ parts, values }: { parts: PreviewParts; values?: { header: Record<number, string>; body: Record<number, string> } }) {
  const header = parts.header ? renderText(parts.header, values?.header ?? {}) : '';
  const body = renderText(parts.body, values?.body ?? {});
  return (
    <div className="rounded-lg bg-[#e5ddd5] p-4" data-testid="template-preview">
      <div className="max-w-sm rounded-lg bg-white p-3 shadow-sm">
        {header && <p className="mb-1 font-semibold text-gray-900">{header}</p>}
        <p className="whitespace-pre-wrap text-sm text-gray-800">{body || <span className="text-gray-500">El cuerpo del mensaje aparecerá aquí</span>}</p>
        {parts.footer && <p className="mt-2 text-xs text-gray-500">{parts.footer}</p>}
      </div>
    </div>
  );
}
