import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { ToastBar, useToaster, type Toast } from 'react-hot-toast';

/** Distance from the viewport's top and right edges, and from a control the toasts step past. */
export const TOAST_MARGIN = 16;
const GAP = 8;

/** What a person can click or type into: a toast must not sit on any of these. */
const CONTROLS = 'button, a[href], input, select, textarea, summary, [role="button"], [role="link"], [role="radio"], [role="checkbox"], [role="tab"], [role="combobox"]';

interface Span {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * The highest top, from TOAST_MARGIN down, at which a stack `width` × `height` wide at the
 * right edge overlaps none of `controls`: each time it would, it steps below the control it
 * hits. When no such place fits in the viewport, TOAST_MARGIN (the spec's top-right).
 */
export function freeTop(stack: { left: number; right: number; height: number }, controls: Span[], viewportHeight: number): number {
  let top = TOAST_MARGIN;
  for (let step = 0; step <= controls.length; step++) {
    const hits = controls.filter((c) => c.left < stack.right && stack.left < c.right && c.top < top + stack.height && top < c.bottom);
    if (!hits.length) return top + stack.height <= viewportHeight ? top : TOAST_MARGIN;
    top = Math.max(...hits.map((c) => c.bottom)) + GAP;
  }
  return TOAST_MARGIN;
}

/** The visible controls a person can use now (those behind a modal dialog are aria-hidden). */
function visibleControls(except: Element): Span[] {
  const out: Span[] = [];
  for (const el of Array.from(document.querySelectorAll<HTMLElement>(CONTROLS))) {
    if (except.contains(el) || el.closest('[aria-hidden="true"], [inert]')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.bottom <= 0 || r.top >= window.innerHeight) continue;
    out.push({ left: r.left, right: r.right, top: r.top, bottom: r.bottom });
  }
  return out;
}

/**
 * The console's toasts: top-right as the spec says, but never on top of a button, link or
 * field. react-hot-toast's own Toaster always sits 16 px from the top, where a page header's
 * actions live ("Campaña iniciada exitosamente" sat on "Pausar"); this one measures the
 * controls in its column while a toast shows (again on scroll, resize and DOM changes) and
 * moves the stack just below the ones it would cover.
 */
export function Toasts() {
  const { toasts, handlers } = useToaster();
  const stack = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(TOAST_MARGIN);
  const shown = toasts.filter((t) => t.visible);
  const key = shown.map((t) => t.id).join(',');

  useLayoutEffect(() => {
    const box = stack.current;
    if (!box || !key) return;
    let frame = 0;
    const place = () => {
      const r = box.getBoundingClientRect();
      if (!r.height) return;
      setTop(freeTop({ left: r.left, right: r.right, height: r.height }, visibleControls(box), window.innerHeight));
    };
    const later = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(place);
    };
    place();
    window.addEventListener('scroll', later, true);
    window.addEventListener('resize', later);
    const observer = new MutationObserver(later);
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', later, true);
      window.removeEventListener('resize', later);
      observer.disconnect();
    };
  }, [key]);

  return (
    <div
      ref={stack}
      data-testid="toasts"
      // react-hot-toast's own marker, which tests wait on ("no toast left").
      data-rht-toaster=""
      onMouseEnter={handlers.startPause}
      onMouseLeave={handlers.endPause}
      style={{ top, right: TOAST_MARGIN }}
      className="pointer-events-none fixed z-[9999] flex max-w-[calc(100vw-2rem)] flex-col items-end gap-2"
    >
      {shown.map((t) => (
        <ToastItem key={t.id} toast={t} onHeight={handlers.updateHeight} />
      ))}
    </div>
  );
}

/** One toast. Its measured height goes to the store: until it has one, ToastBar keeps the toast transparent. */
function ToastItem({ toast, onHeight }: { toast: Toast; onHeight: (id: string, height: number) => void }) {
  const measure = useCallback(
    (el: HTMLDivElement | null) => {
      const height = el?.getBoundingClientRect().height;
      if (height && height !== toast.height) onHeight(toast.id, height);
    },
    [toast.id, toast.height, onHeight],
  );
  return (
    <div ref={measure} className="pointer-events-auto">
      <ToastBar toast={toast} position="top-right" />
    </div>
  );
}
