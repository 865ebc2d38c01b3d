import { ChevronLeft, ChevronRight } from 'lucide-react';
import { CONTACT_PAGE_SIZES, MAX_CONTACT_OFFSET } from '@masivo/contract/contacts';
import { cn } from '@/components/ui/cn';
import { formatNumber } from '@/lib/format';

/** Spec §9: at most 5 page numbers, centred on the current page. */
export const MAX_PAGE_BUTTONS = 5;

export function pageWindow(page: number, pages: number): number[] {
  const count = Math.min(MAX_PAGE_BUTTONS, pages);
  const start = Math.min(Math.max(1, page - Math.floor(count / 2)), Math.max(1, pages - count + 1));
  return Array.from({ length: count }, (_, i) => start + i);
}

interface PaginationProps {
  page: number;
  pageSize: number;
  total: number;
  /** The total is an estimate while the server computes the exact figure. */
  approximate?: boolean;
  /** The rows on screen (the previous page stays while the next loads): the summary describes them. */
  shown: { offset: number; count: number };
  onPage(page: number): void;
  onPageSize(size: number): void;
}

export function Pagination({ page, pageSize, total, approximate, shown, onPage, onPageSize }: PaginationProps) {
  // Listing offsets stop at MAX_CONTACT_OFFSET (a bound of the API): pages past it are not offered;
  // filters narrow a large account instead.
  const pages = Math.max(1, Math.min(Math.ceil(total / pageSize), Math.floor(MAX_CONTACT_OFFSET / pageSize) + 1));
  const from = shown.count === 0 ? 0 : shown.offset + 1;
  const to = shown.offset + shown.count;
  const btn = 'inline-flex h-8 min-w-8 max-sm:h-11 max-sm:min-w-11 items-center justify-center rounded-md border px-2 text-sm';
  return (
    <div className="flex flex-wrap items-center justify-between gap-3 border-t border-gray-200 px-4 py-3">
      <div className="flex flex-wrap items-center gap-3 text-sm text-gray-700">
        <span data-testid="contacts-summary">
          Mostrando {formatNumber(from)} al {formatNumber(to)} de {approximate ? '≈ ' : ''}
          {formatNumber(total)} resultados
        </span>
        <label className="flex items-center gap-1">
          <span className="text-gray-600">Por página</span>
          <select
            aria-label="Contactos por página"
            value={pageSize}
            onChange={(e) => onPageSize(Number(e.target.value))}
            className="rounded-md border border-gray-300 px-2 py-1 text-sm"
          >
            {CONTACT_PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </div>
      <nav aria-label="Paginación" className="flex items-center gap-1">
        <button type="button" className={cn(btn, 'border-gray-300 text-gray-700 hover:bg-gray-50 disabled:opacity-40')} disabled={page <= 1} onClick={() => onPage(page - 1)}>
          <ChevronLeft className="h-4 w-4" aria-hidden="true" />
          Anterior
        </button>
        {pageWindow(page, pages).map((n) => (
          <button
            key={n}
            type="button"
            aria-current={n === page ? 'page' : undefined}
            onClick={() => onPage(n)}
            // On phones only the current number stays: five 44 px numbers do not fit beside the arrows.
            className={cn(btn, n === page ? 'border-blue-600 bg-blue-600 text-white' : 'border-gray-300 text-gray-700 hover:bg-gray-50 max-sm:hidden')}
          >
            {n}
          </button>
        ))}
        <button type="button" className={cn(btn, 'border-gray-300 text-gray-700 hover:bg-gray-50 disabled:opacity-40')} disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Siguiente
          <ChevronRight className="h-4 w-4" aria-hidden="true" />
        </button>
      </nav>
    </div>
  );
}
