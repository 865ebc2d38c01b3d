import { Copy, ExternalLink, FileText, Image, MapPin, Phone, Reply, Video } from 'lucide-react';
import { ANY_PLACEHOLDER_PATTERN } from '@masivo/contract/variables';
import { BUTTON_TYPE_LABELS, HEADER_FORMAT_LABELS, fillPlaceholders, type TemplateButton } from './template-parts';

export interface PreviewParts {
  header?: string | null;
  /** A media or location header: its format and the link (or media id) it would carry. */
  headerMedia?: { format: string; value?: string | null } | null;
  body: string;
  footer?: string | null;
  buttons?: TemplateButton[];
}

const MEDIA_ICONS = { IMAGE: Image, VIDEO: Video, DOCUMENT: FileText, LOCATION: MapPin } as Record<string, typeof Image>;
const BUTTON_ICONS = { URL: ExternalLink, PHONE_NUMBER: Phone, COPY_CODE: Copy, QUICK_REPLY: Reply } as Record<string, typeof Image>;

/**
 * A WhatsApp-like bubble; unfilled placeholders stay visible as {{n}} or {{name}}. Media is
 * drawn as a placeholder with its link: the console never loads a tenant's files itself.
 * `buttonValues` holds the dynamic part of a button by its index (URL suffix, coupon code).
 */
export function TemplatePreview({
  parts,
  values,
  buttonValues = {},
}: {
  parts: PreviewParts;
  values?: { header: Record<string, string>; body: Record<string, string> };
  buttonValues?: Record<number, string>;
}) {
  const header = parts.header ? fillPlaceholders(parts.header, values?.header) : '';
  const body = fillPlaceholders(parts.body, values?.body);
  const media = parts.headerMedia;
  const MediaIcon = media ? (MEDIA_ICONS[media.format.toUpperCase()] ?? FileText) : null;
  const buttons = parts.buttons ?? [];
  return (
    <div className="rounded-lg bg-[#e5ddd5] p-4" data-testid="template-preview">
      <div className="max-w-sm rounded-lg bg-white p-1 shadow-sm">
        {media && MediaIcon && (
          <div className="flex min-h-28 flex-col items-center justify-center gap-1 rounded-md bg-gray-200 p-3 text-center text-gray-600" data-testid="preview-media">
            <MediaIcon className="h-8 w-8" aria-hidden="true" />
            <span className="text-xs font-medium">{HEADER_FORMAT_LABELS[media.format.toUpperCase()] ?? media.format}</span>
            <span className="max-w-full text-xs break-all text-gray-500">{media.value || 'Sin archivo asignado'}</span>
          </div>
        )}
        <div className="p-2">
          {header && <p className="mb-1 font-semibold break-words text-gray-900">{header}</p>}
          <p className="text-sm break-words whitespace-pre-wrap text-gray-800">{body || <span className="text-gray-500">El cuerpo del mensaje aparecerá aquí</span>}</p>
          {parts.footer && <p className="mt-2 text-xs text-gray-500">{parts.footer}</p>}
        </div>
        {buttons.length > 0 && (
          <ul className="divide-y divide-gray-100 border-t border-gray-100" aria-label="Botones">
            {buttons.map((b, i) => {
              const Icon = BUTTON_ICONS[b.type] ?? Reply;
              const detail = buttonDetail(b, buttonValues[i]);
              return (
                <li key={i} className="flex flex-col items-center px-2 py-2 text-sm font-medium text-sky-700">
                  <span className="flex items-center gap-1.5">
                    <Icon className="h-4 w-4" aria-hidden="true" />
                    {b.text || BUTTON_TYPE_LABELS[b.type] || b.type}
                  </span>
                  {detail && <span className="max-w-full text-xs font-normal break-all text-gray-500">{detail}</span>}
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </div>
  );
}

/** What tapping the button would use: the full URL, the phone or the coupon code. */
function buttonDetail(b: TemplateButton, value: string | undefined): string | null {
  if (b.type === 'URL' && b.url) return value ? b.url.replace(ANY_PLACEHOLDER_PATTERN, () => value) : b.url;
  if (b.type === 'PHONE_NUMBER') return b.phone_number ?? null;
  if (b.type === 'COPY_CODE') return value || '{{código}}';
  return null;
}
