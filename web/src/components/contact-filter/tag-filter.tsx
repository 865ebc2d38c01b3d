import type { ContactFilter } from '@masivo/contract/contact-filter';
import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { cn } from '../ui/cn';

interface TagFilterProps {
  tags: string[];
  selected: string[];
  operator: ContactFilter['tagOperator'];
  onChange(tags: string[], operator: ContactFilter['tagOperator']): void;
  /** "Sin las etiquetas": red chips, no AND / OR (a contact holding any of them is left out). */
  exclude?: boolean;
}

const LABEL = { include: 'Etiquetas', exclude: 'Sin las etiquetas' } as const;

const MOVES: Record<string, (i: number, last: number) => number> = {
  ArrowRight: (i, last) => Math.min(last, i + 1),
  ArrowDown: (i, last) => Math.min(last, i + 1),
  ArrowLeft: (i) => Math.max(0, i - 1),
  ArrowUp: (i) => Math.max(0, i - 1),
  Home: () => 0,
  End: (_, last) => last,
};

/**
 * Multi-select chips with the AND / OR toggle (spec §2); the chip area scrolls past 9rem.
 * The chips are one Tab stop (roving tabindex): arrows, Home and End move between them, Space or
 * Enter toggles one. With 30 tags a Tab per chip made the campaign form 61 presses long.
 */
export function TagFilter({ tags, selected, operator, onChange, exclude = false }: TagFilterProps) {
  const label = exclude ? LABEL.exclude : LABEL.include;
  const [active, setActive] = useState(0);
  const chips = useRef<Array<HTMLButtonElement | null>>([]);
  const hintId = useId();
  const current = Math.min(active, Math.max(0, tags.length - 1));
  const toggle = (tag: string) =>
    onChange(selected.includes(tag) ? selected.filter((t) => t !== tag) : [...selected, tag], operator);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const move = MOVES[event.key];
    if (!move) return;
    event.preventDefault();
    const next = move(current, tags.length - 1);
    setActive(next);
    chips.current[next]?.focus();
  };
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="text-sm font-medium text-gray-700">{label}</span>
        <div className="flex items-center gap-2">
          {!exclude && (
            <div role="group" aria-label="Operador de etiquetas" className="inline-flex overflow-hidden rounded-md border border-gray-300 text-xs">
              {(['AND', 'OR'] as const).map((op) => (
                <button
                  key={op}
                  type="button"
                  aria-pressed={operator === op}
                  onClick={() => onChange(selected, op)}
                  className={cn('px-2.5 py-1 font-medium', operator === op ? 'bg-blue-600 text-white' : 'bg-white text-gray-700 hover:bg-gray-50')}
                >
                  {op === 'AND' ? 'Y (Todas)' : 'O (Alguna)'}
                </button>
              ))}
            </div>
          )}
          {selected.length > 0 && (
            <button type="button" onClick={() => onChange([], operator)} className="text-xs text-blue-700 hover:underline">
              {exclude ? 'Limpiar exclusiones' : 'Limpiar selección'} ({selected.length})
            </button>
          )}
        </div>
      </div>
      {exclude && (
        <p className="text-xs text-gray-500">Quedan fuera los contactos con alguna de estas etiquetas, aunque cumplan los demás filtros.</p>
      )}
      {tags.length === 0 ? (
        <p className="text-sm text-gray-500">No hay etiquetas en esta cuenta</p>
      ) : (
        <div
          role="group"
          aria-label={label}
          aria-describedby={hintId}
          onKeyDown={onKeyDown}
          className="flex max-h-36 flex-wrap gap-2 overflow-y-auto rounded-md border border-gray-100 p-2"
        >
          <span id={hintId} className="sr-only">
            Usa las flechas para recorrer las etiquetas y Espacio para marcarlas
          </span>
          {tags.map((tag, i) => {
            const on = selected.includes(tag);
            return (
              <button
                key={tag}
                ref={(el) => {
                  chips.current[i] = el;
                }}
                type="button"
                aria-pressed={on}
                // Each tag has a chip on both sides: the name says which one this is.
                aria-label={exclude ? `Excluir ${tag}` : undefined}
                tabIndex={i === current ? 0 : -1}
                onFocus={() => setActive(i)}
                onClick={() => toggle(tag)}
                className={cn(
                  'rounded-full border px-3 py-1 text-xs font-medium transition-colors max-sm:min-w-0',
                  on && !exclude && 'border-blue-600 bg-blue-600 text-white',
                  on && exclude && 'border-red-700 bg-red-700 text-white',
                  !on && 'border-gray-300 bg-white text-gray-700',
                  !on && (exclude ? 'hover:border-red-400' : 'hover:border-blue-400'),
                )}
              >
                {on && exclude && (
                  <span aria-hidden="true" className="mr-1">
                    ✕
                  </span>
                )}
                {tag}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}
