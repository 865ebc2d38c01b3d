import type { LoginInput, RegisterInput, User } from '@masivo/contract/auth';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { onUnauthorized } from '@/lib/api-client';
import { queryClient } from '@/lib/query-client';
import { sessionStore } from '@/lib/session-storage';
import { authApi } from './api/auth-api';

interface AuthState {
  user: User | null;
  isLoading: boolean;
  login(input: LoginInput): Promise<void>;
  register(input: RegisterInput): Promise<void>;
  logout(): Promise<void>;
}

/** How long "Cerrar Sesión" waits for the server before signing out locally anyway. */
const LOGOUT_WAIT_MS = 3000;

const AuthContext = createContext<AuthState | null>(null);

/** Spec §4 Session: a stored token loads the current user on start; failure clears it. */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null>(() => (sessionStore.token() ? sessionStore.user() : null));
  const [isLoading, setIsLoading] = useState(() => !!sessionStore.token());

  useEffect(() => {
    if (!sessionStore.token()) return;
    let cancelled = false;
    authApi
      .me()
      .then((me) => {
        if (cancelled) return;
        sessionStore.save(sessionStore.token()!, me);
        setUser(me);
      })
      .catch(() => {
        if (cancelled) return;
        sessionStore.clear();
        setUser(null);
      })
      .finally(() => !cancelled && setIsLoading(false));
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => onUnauthorized(() => setUser(null)), []);

  const login = useCallback(async (input: LoginInput) => {
    const { token, user: u } = await authApi.login(input);
    sessionStore.save(token, u);
    setUser(u);
  }, []);

  const register = useCallback(async (input: RegisterInput) => {
    const { token, user: u } = await authApi.register(input);
    sessionStore.save(token, u);
    setUser(u);
  }, []);

  const logout = useCallback(async () => {
    // The server revokes the token first, so a copy left elsewhere stops working too. Its
    // failure (offline, already expired) must never keep anyone signed in here.
    const revoke = authApi.logout().catch(() => undefined);
    await Promise.race([revoke, new Promise((resolve) => setTimeout(resolve, LOGOUT_WAIT_MS))]);
    sessionStore.clear();
    queryClient.clear();
    setUser(null);
  }, []);

  const value = useMemo(() => ({ user, isLoading, login, register, logout }), [user, isLoading, login, register, logout]);
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth needs <AuthProvider>');
  return ctx;
}
