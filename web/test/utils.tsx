import type { Campaign } from '@masivo/contract/campaigns';
import { ROLE_PERMISSIONS, type Me } from '@masivo/contract/organizations';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { Toaster } from 'react-hot-toast';
import { MemoryRouter, Route, Routes } from 'react-router';
import { vi } from 'vitest';

/**
 * One harness for the screen tests: a fake API keyed by "METHOD /path", the providers a page
 * needs, and a campaign factory. `setup.ts` undoes the stubs after every test.
 */

export type Reply = { status?: number; body: unknown };
export type Handler = (url: URL, init?: RequestInit) => Reply | Promise<Reply>;
export type Routes = Record<string, Handler>;

export interface ApiRequest {
  key: string;
  url: URL;
  body: unknown;
}

export interface ApiStub {
  /** Replace or add routes mid-test; unknown routes answer 500 with a Spanish error. */
  routes: Routes;
  requests: ApiRequest[];
  /** "METHOD /path" of every request so far, in order. */
  calls(): string[];
  /** Parsed JSON bodies sent to one route. */
  bodies(key: string): unknown[];
}

/** The member most screen tests act as: an owner, who may do everything. */
export const OWNER_ME: Me = {
  user: { id: 1, email: 'ana@example.com', first_name: 'Ana', last_name: 'Pérez', created_at: '2026-01-01T00:00:00.000Z' },
  organization: { id: 1, name: 'Ana Pérez' },
  role: 'owner',
  permissions: [...ROLE_PERMISSIONS.owner],
  scope: { whatsapp_account_ids: [], kommo_account_ids: [] },
  organizations: [{ id: 1, name: 'Ana Pérez', role: 'owner' }],
};

export function stubApi(routes: Routes = {}): ApiStub {
  // Screens ask who the member is to hide what the role cannot do; an owner unless a test says otherwise.
  if (!routes['GET /api/me']) routes['GET /api/me'] = () => ({ body: OWNER_ME });
  const stub: ApiStub = {
    routes,
    requests: [],
    // The member lookup is the shell's, not the screen's: left out of what a test asserts it called.
    calls: () => stub.requests.map((r) => r.key).filter((k) => k !== 'GET /api/me'),
    bodies: (key) => stub.requests.filter((r) => r.key === key).map((r) => r.body),
  };
  localStorage.setItem('token', 't');
  // jsdom has no matchMedia; the toaster and the phone layout ask it.
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: false, media: query, addEventListener() {}, removeEventListener() {} }));
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: string, init?: RequestInit) => {
      const url = new URL(String(input), 'http://localhost');
      const key = `${init?.method ?? 'GET'} ${url.pathname}`;
      stub.requests.push({ key, url, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
      const handler = stub.routes[key];
      const { status = 200, body } = handler ? await handler(url, init) : { status: 500, body: { error: `sin ruta ${key}` } };
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }),
  );
  return stub;
}

/**
 * Renders `element` at `path` inside the app's providers. `routePath` gives the element a route
 * pattern (for `useParams`); the other screens it navigates to render as a plain marker text.
 */
export function renderAt(path: string, element: ReactNode, routePath = path.split('?')[0]) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path={routePath} element={element} />
          <Route path="/campaigns" element={<p>lista de campañas</p>} />
          <Route path="/campaigns/:id" element={<p>pantalla de detalle</p>} />
        </Routes>
        <Toaster />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

export const campaign = (over: Partial<Campaign> = {}): Campaign => ({
  id: 1,
  name: 'Promo',
  description: 'Descripción de prueba',
  status: 'draft',
  message_type: 'template',
  message_content: null,
  template_id: 1,
  template_name: 'promo_verano',
  template_language: 'es',
  kommo_account_id: 1,
  whatsapp_account_id: 1,
  filters: { searchQuery: '', tags: [], tagOperator: 'OR', excludedTags: [], customFieldFilters: {} },
  total_recipients: 10,
  messages_sent: 0,
  delivered_count: 0,
  read_count: 0,
  failed_count: 0,
  skipped_count: 0,
  unknown_count: 0,
  pending_count: 10,
  deferred_count: 0,
  deferred_max_attempts: 2,
  deferred_window_hours: 72,
  limit_wait_until: null,
  pause_reason: null,
  pause_origin: null,
  held_count: 0,
  template_risk: null,
  scheduled_at: null,
  started_at: null,
  completed_at: null,
  created_at: '2025-01-01T10:00:00.000Z',
  updated_at: '2025-01-01T10:00:00.000Z',
  ...over,
});
