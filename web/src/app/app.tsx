import { QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import { AuthProvider } from '../features/auth/auth-context';
import { queryClient } from '@/lib/query-client';
import { AppRoutes } from './router';
import { Toasts } from '@/components/ui/toasts';

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <AuthProvider>
          <AppRoutes />
          {/* Top-right, as the spec says, stepping below any control it would cover. */}
          <Toasts />
        </AuthProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
