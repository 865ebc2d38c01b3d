import { useEffect, useState } from 'react';

/** The value once it has stopped changing for `ms`; compared by JSON so objects work. */
export function useDebouncedValue<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  const key = JSON.stringify(value);
  useEffect(() => {
    const t = setTimeout(() => setDebounced(JSON.parse(key) as T), ms);
    return () => clearTimeout(t);
  }, [key, ms]);
  return debounced;
}
