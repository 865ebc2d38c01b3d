import { useEffect, type ReactNode } from 'react';

export const APP_NAME = 'Mensajes Masivos';

/** Each screen its own document title (WCAG 2.4.2), so tabs, history and screen readers tell them apart. */
export function Titled({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · ${APP_NAME}`;
  }, [title]);
  return <>{children}</>;
}
