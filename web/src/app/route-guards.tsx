import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { useAuth } from '../features/auth/auth-context';
import { redirectTarget } from '../features/auth/components/redirect-target';

/** Sends visitors to /login, remembering where they were going. */
export function ProtectedRoute({ children }: { children: ReactNode }) {
  const { user, isLoading } = useAuth();
  const location = useLocation();
  if (isLoading) return <Spinner className="min-h-screen" />;
  if (!user) return <Navigate to="/login" replace state={{ from: location }} />;
  return <>{children}</>;
}

/** Login and register send a signed-in user on to where they were going. */
export function PublicOnlyRoute({ children }: { children: ReactNode }) {
  const { user, isLoading } = useAuth();
  const location = useLocation();
  if (isLoading) return <Spinner className="min-h-screen" />;
  if (user) return <Navigate to={redirectTarget(location.state)} replace />;
  return <>{children}</>;
}
