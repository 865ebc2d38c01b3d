import { Check, Copy } from 'lucide-react';
import { useState } from 'react';

/** A read-only value the operator pastes into Meta's webhook settings. */
export function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // Clipboard access can be denied; the value stays selectable.
    }
  };
  return (
    <div>
      <p className="text-xs font-medium text-gray-500">{label}</p>
      <div className="mt-0.5 flex items-center gap-1">
        <code className="min-w-0 flex-1 truncate rounded max-sm:break-all max-sm:whitespace-normal bg-gray-100 px-2 py-1 text-xs text-gray-800" title={value}>
          {value}
        </code>
        <button
          type="button"
          onClick={copy}
          aria-label={`Copiar ${label}`}
          className="tap-target inline-flex shrink-0 items-center justify-center rounded p-1 text-gray-500 hover:bg-gray-100 hover:text-gray-700"
        >
          {copied ? <Check className="h-4 w-4 text-green-600" aria-hidden="true" /> : <Copy className="h-4 w-4" aria-hidden="true" />}
        </button>
      </div>
      {/* The check mark alone is silent; this tells a screen reader the copy worked. */}
      <p role="status" className="sr-only">
        {copied ? `${label} copiado` : ''}
      </p>
    </div>
  );
}
