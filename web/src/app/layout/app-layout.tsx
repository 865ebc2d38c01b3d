import { useRef } from 'react';
import { Outlet } from 'react-router';
import { MobileNav } from './mobile-nav';
import { useFocusHeadingOnNavigate } from './page-focus';
import { Sidebar } from './sidebar';

export function AppLayout() {
  const main = useRef<HTMLElement>(null);
  useFocusHeadingOnNavigate(main);
  return (
    <div className="min-h-screen bg-gray-50">
      <a
        href="#contenido"
        onClick={(event) => {
          // Focus the content directly: a bare hash jump would also add a history entry.
          event.preventDefault();
          main.current?.focus();
        }}
        className="sr-only z-50 rounded-md bg-white px-4 py-3 text-sm font-medium text-blue-700 shadow focus:not-sr-only focus:fixed focus:top-2 focus:left-2"
      >
        Saltar al contenido
      </a>
      <MobileNav />
      <Sidebar />
      <main id="contenido" ref={main} tabIndex={-1} className="min-h-screen min-w-0 p-4 focus:outline-none sm:p-6 lg:ml-64 lg:p-8">
        <Outlet />
      </main>
    </div>
  );
}
