import { BUTTON_LIMITS, BUTTON_TEXT_MAX, COUPON_CODE_MAX, URL_SUFFIX_PLACEHOLDER, type ButtonType, type TemplateButtonInput } from '@masivo/contract/templates';
import { Plus, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { BUTTON_TYPE_LABELS } from './template-parts';

/** A button as the dialog edits it: every field kept, only those of its type are sent. */
export interface ButtonDraft {
  type: ButtonType;
  text: string;
  url: string;
  example: string;
  phone_number: string;
}

const CONTROL = 'block w-full min-w-0 rounded-md border border-gray-300 px-3 py-2 text-sm shadow-sm focus:border-blue-500';
const ADDABLE: ButtonType[] = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE'];

export function toButtonInput(b: ButtonDraft): TemplateButtonInput {
  switch (b.type) {
    case 'QUICK_REPLY':
      return { type: 'QUICK_REPLY', text: b.text.trim() };
    case 'URL':
      return { type: 'URL', text: b.text.trim(), url: b.url.trim(), ...(b.url.trim().endsWith(URL_SUFFIX_PLACEHOLDER) && { example: b.example.trim() }) };
    case 'PHONE_NUMBER':
      return { type: 'PHONE_NUMBER', text: b.text.trim(), phone_number: b.phone_number.trim() };
    case 'COPY_CODE':
      return { type: 'COPY_CODE', example: b.example.trim() };
  }
}

/** Meta's limits per type decide which kinds can still be added. */
function canAdd(buttons: ButtonDraft[], type: ButtonType) {
  return buttons.length < BUTTON_LIMITS.total && buttons.filter((b) => b.type === type).length < BUTTON_LIMITS[type];
}

export function ButtonEditor({ buttons, onChange }: { buttons: ButtonDraft[]; onChange: (buttons: ButtonDraft[]) => void }) {
  const [kind, setKind] = useState<ButtonType>('QUICK_REPLY');
  const update = (i: number, patch: Partial<ButtonDraft>) => onChange(buttons.map((b, j) => (j === i ? { ...b, ...patch } : b)));
  const addable = ADDABLE.filter((t) => canAdd(buttons, t));
  const selected = addable.includes(kind) ? kind : addable[0];
  return (
    <fieldset className="space-y-3 rounded-md border border-gray-200 p-3" data-testid="button-editor">
      <legend className="px-1 text-sm font-medium text-gray-700">Botones</legend>
      <p className="text-xs text-gray-500">Hasta 10 botones: respuestas rápidas, 2 enlaces (URL), 1 llamada y 1 copiar código.</p>
      {buttons.map((b, i) => {
        const n = i + 1;
        const dynamic = b.url.trim().endsWith(URL_SUFFIX_PLACEHOLDER);
        return (
          <div key={i} className="space-y-2 rounded-md bg-gray-50 p-2">
            <div className="flex items-center justify-between gap-2">
              <p className="text-xs font-semibold text-gray-600">{`Botón ${n}: ${BUTTON_TYPE_LABELS[b.type]}`}</p>
              <Button size="sm" variant="ghost" onClick={() => onChange(buttons.filter((_, j) => j !== i))} aria-label={`Quitar botón ${n}`}>
                <Trash2 className="h-4 w-4 text-red-600" />
              </Button>
            </div>
            {b.type !== 'COPY_CODE' && (
              <input aria-label={`Texto del botón ${n}`} placeholder="Texto del botón" maxLength={BUTTON_TEXT_MAX} value={b.text} onChange={(e) => update(i, { text: e.target.value })} className={CONTROL} />
            )}
            {b.type === 'URL' && (
              <>
                <input aria-label={`URL del botón ${n}`} placeholder="https://ejemplo.com/pedido/{{1}}" value={b.url} onChange={(e) => update(i, { url: e.target.value })} className={CONTROL} />
                <p className="text-xs text-gray-500">Termina la URL con {URL_SUFFIX_PLACEHOLDER} para completarla en cada mensaje.</p>
                {dynamic && (
                  <input aria-label={`Ejemplo del final de la URL del botón ${n}`} placeholder="Valor de ejemplo" value={b.example} onChange={(e) => update(i, { example: e.target.value })} className={CONTROL} />
                )}
              </>
            )}
            {b.type === 'PHONE_NUMBER' && (
              <input aria-label={`Teléfono del botón ${n}`} placeholder="+5491112345678" value={b.phone_number} onChange={(e) => update(i, { phone_number: e.target.value })} className={CONTROL} />
            )}
            {b.type === 'COPY_CODE' && (
              <input aria-label={`Código de ejemplo del botón ${n}`} placeholder="DESCUENTO25" maxLength={COUPON_CODE_MAX} value={b.example} onChange={(e) => update(i, { example: e.target.value })} className={CONTROL} />
            )}
          </div>
        );
      })}
      {selected && (
        <div className="flex flex-wrap items-center gap-2">
          <select aria-label="Tipo de botón nuevo" value={selected} onChange={(e) => setKind(e.target.value as ButtonType)} className={`${CONTROL} w-auto`}>
            {addable.map((t) => (
              <option key={t} value={t}>
                {BUTTON_TYPE_LABELS[t]}
              </option>
            ))}
          </select>
          <Button size="sm" variant="secondary" onClick={() => onChange([...buttons, { type: selected, text: '', url: '', example: '', phone_number: '' }])}>
            <Plus className="h-4 w-4" /> Agregar botón
          </Button>
        </div>
      )}
    </fieldset>
  );
}
