import { useSyncExternalStore } from 'react';

/** Tailwind's `sm` breakpoint: below it a table is shown as a stacked list. */
export const PHONE_QUERY = '(max-width: 639.98px)';

const noop = () => () => {};

/** Whether a CSS media query matches now, re-rendering when it changes (false where there is no `matchMedia`). */
export function useMediaQuery(query: string) {
  return useSyncExternalStore(
    typeof window !== 'undefined' && window.matchMedia
      ? (onChange) => {
          const list = window.matchMedia(query);
          list.addEventListener('change', onChange);
          return () => list.removeEventListener('change', onChange);
        }
      : noop,
    () => (typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(query).matches : false),
    () => false,
  );
}

export const useIsPhone = () => useMediaQuery(PHONE_QUERY);
