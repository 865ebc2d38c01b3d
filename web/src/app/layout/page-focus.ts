import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';

/** How long a page may take to draw its heading (it may wait for data) before `main` is focused instead. */
const HEADING_WAIT_MS = 1500;

/**
 * After an in-app navigation, focus the new page's `h1` so a screen reader announces it and the
 * next Tab starts in the content, not back at the top of the sidebar. The first load is left
 * alone, so the skip link stays the first stop.
 */
export function useFocusHeadingOnNavigate(main: React.RefObject<HTMLElement | null>) {
  const { pathname } = useLocation();
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const started = Date.now();
    let frame = 0;
    const tryFocus = () => {
      const root = main.current;
      if (!root) return;
      // A dialog opened meanwhile owns focus.
      if (document.querySelector('[role="dialog"]')) return;
      const heading = root.querySelector<HTMLElement>('h1');
      if (heading) {
        heading.tabIndex = -1;
        heading.focus({ preventScroll: false });
      } else if (Date.now() - started < HEADING_WAIT_MS) {
        frame = requestAnimationFrame(tryFocus);
      } else {
        root.focus();
      }
    };
    frame = requestAnimationFrame(tryFocus);
    return () => cancelAnimationFrame(frame);
  }, [pathname, main]);
}
