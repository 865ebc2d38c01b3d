import type { ContactFilter } from '@masivo/contract/contact-filter';
import { cn } from '../ui/cn';

interface TagFilterProps {
  tags: string[];
  selected: string[];
  operator: ContactFilter['tagOperator'];
  onChange(tags: string[], operator: ContactFilter['tagOperator']): void;
}

/** Multi-select chips with the AND / OR toggle (spec §2); the chip area scrolls past 9rem. */
export function TagFilter({ tags, selected, operator, onChange }: TagFilterProps) {
  const toggle = (tag: string) =>
    onChange(selected.includes(tag) ? selected.filter((t) => t !== tag) : [...selected, tag], operator);
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="text-sm font-medium text-gray-700">Etiquetas</span>
        <div className="flex items-center gap-2">
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
          {selected.length > 0 && (
            <button type="button" onClick={() => onChange([], operator)} className="text-xs text-blue-600 hover:underline">
              Limpiar selección ({selected.length})
            </button>
          )}
        </div>
      </div>
      {tags.length === 0 ? (
        <p className="text-sm text-gray-400">No hay etiquetas en esta cuenta</p>
      ) : (
        <div className="flex max-h-36 flex-wrap gap-2 overflow-y-auto rounded-md border border-gray-100 p-2">
          {tags.map((tag) => {
            const on = selected.includes(tag);
            return (
              <button
                key={tag}
                type="button"
                aria-pressed={on}
                onClick={() => toggle(tag)}
                className={cn(
                  'rounded-full border px-3 py-1 text-xs font-medium transition-colors',
                  on ? 'border-blue-600 bg-blue-600 text-white' : 'border-gray-300 bg-white text-gray-700 hover:border-blue-400',
                )}
              >
                {tag}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}
