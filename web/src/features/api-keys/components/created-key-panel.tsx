import type { CreatedApiKey } from '@masivo/contract/api-keys';
import { AlertTriangle, Check, Copy } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';

/** The public API's address on this console, for the example. */
const apiBase = () => `${window.location.origin}/api/v1`;

/** A value with its own «Copiar» button; a polite status says the copy worked (or how to do it by hand). */
function CopyBlock({ id, label, value, buttonLabel, autoFocus }: { id: string; label: string; value: string; buttonLabel: string; autoFocus?: boolean }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // The form's submit button is gone once the key shows: focus lands here, not on <body>.
    if (autoFocus) box.current?.querySelector('button')?.focus();
  }, [autoFocus]);
  const copy = () =>
    navigator.clipboard
      .writeText(value)
      .then(() => setState('copied'))
      .catch(() => setState('failed'));
  return (
    <div ref={box} className="space-y-1">
      <p id={`${id}-label`} className="text-sm font-medium text-gray-700">
        {label}
      </p>
      <div className="flex flex-col gap-2 sm:flex-row sm:items-start">
        <code
          id={id}
          className="min-w-0 flex-1 rounded-md border border-gray-300 bg-gray-50 px-3 py-2 font-mono text-xs break-all whitespace-pre-wrap text-gray-900 select-all"
        >
          {value}
        </code>
        <Button size="sm" variant="secondary" onClick={() => void copy()} aria-describedby={`${id}-label`} className="shrink-0">
          {state === 'copied' ? <Check className="h-4 w-4 text-green-700" aria-hidden="true" /> : <Copy className="h-4 w-4" aria-hidden="true" />}
          {buttonLabel}
        </Button>
      </div>
      <p role="status" className="text-xs text-gray-600">
        {state === 'copied' ? 'Copiado al portapapeles' : state === 'failed' ? 'No se pudo copiar: selecciónalo y cópialo a mano' : ''}
      </p>
    </div>
  );
}

/**
 * The key just created, whole, for the only time: the server keeps a hash of it. Closing the
 * dialog forgets it (the page keeps no copy), so the warning comes first.
 */
export function CreatedKeyPanel({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const curl = `curl -H "Authorization: Bearer ${created.key}" ${apiBase()}/campaigns`;
  return (
    <div className="space-y-4">
      <p className="flex gap-2 rounded-md border border-yellow-300 bg-yellow-50 p-3 text-sm font-medium text-yellow-900">
        <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0" aria-hidden="true" />
        Guárdala ahora: no se volverá a mostrar.
      </p>
      <CopyBlock id="created-api-key" label={`Clave «${created.name}»`} value={created.key} buttonLabel="Copiar" autoFocus />
      <CopyBlock id="created-api-key-example" label="Ejemplo de uso" value={curl} buttonLabel="Copiar ejemplo" />
      <p className="text-xs text-gray-600">
        Envíala en la cabecera <code className="font-mono">Authorization: Bearer</code> de cada petición a la API pública. Si se filtra, revócala y crea otra.
      </p>
      <div className="flex justify-end">
        <Button onClick={onDone}>Listo, la guardé</Button>
      </div>
    </div>
  );
}
