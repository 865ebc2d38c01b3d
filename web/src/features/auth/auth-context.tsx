import type { LoginInput, RegisterInput, User } from '@masivo/contract/auth';
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { ApiError, onUnauthorized } from '@/lib/api-client';
import { queryClient } from '@/lib/query-client';
import { sessionStore } from '@/lib/session-storage';
import { fetchMe, MEMBER_QUERY_KEY } from '@/lib/use-member';
import { authApi } from './api/auth-api';

interface AuthState {
  user: User | null;
  isLoading: boolean;
  login(input: LoginInput): Promise<void>;
  register(input: RegisterInput): Promise<void>;
  logout(): Promise<void>;
  /**
   * Continues with a session the server just issued (after joining an organisation): what was
   * cached belonged to the previous organisation, so it goes.
   */
  adoptSession(token: string, user: User): void;
  /** Signs out on every device. Rejects (and stays signed in here) when the server did not confirm. */
  logoutEverywhere(): Promise<void>;
  /** Acts in another of the user's organisations: a new session, and every cached answer dropped. */
  switchOrganization(id: number): Promise<void>;
}

/** How long "Cerrar Sesión" waits for the server before signing out locally anyway. */
const LOGOUT_WAIT_MS = 3000;

const AuthContext = createContext<AuthState | null>(null);

/** Loads GET /api/me into the cache; its failure only means nothing is hidden until it loads. */
const primeMember = () => queryClient.fetchQuery({ queryKey: MEMBER_QUERY_KEY, queryFn: fetchMe }).catch(() => undefined);

/** Spec §4 Session: a stored token loads the current user on start; failure clears it. */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<User | null>(() => (sessionStore.token() ? sessionStore.user() : null));
  const [isLoading, setIsLoading] = useState(() => !!sessionStore.token());

  useEffect(() => {
    if (!sessionStore.token()) return;
    let cancelled = false;
    // The member (role, permissions) loads with the user, so no screen shows a button its role
    // would hide a moment later.
    Promise.all([authApi.me(), primeMember()])
      .then(([me]) => {
        if (cancelled) return;
        sessionStore.save(sessionStore.token()!, me);
        setUser(me);
        setIsLoading(false);
      })
      .catch((err: unknown) => {
        // After a 401 the login page is already loading in place of this one: keep the spinner
        // rather than route there a second time.
        if (cancelled || (err instanceof ApiError && err.status === 401 && !window.location.pathname.startsWith('/login'))) return;
        sessionStore.clear();
        setUser(null);
        setIsLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, []);

  useEffect(() => onUnauthorized(() => setUser(null)), []);

  const login = useCallback(async (input: LoginInput) => {
    const { token, user: u } = await authApi.login(input);
    sessionStore.save(token, u);
    await primeMember();
    setUser(u);
  }, []);

  const register = useCallback(async (input: RegisterInput) => {
    const { token, user: u } = await authApi.register(input);
    sessionStore.save(token, u);
    await primeMember();
    setUser(u);
  }, []);

  const adoptSession = useCallback((token: string, u: User) => {
    sessionStore.save(token, u);
    queryClient.clear();
    void primeMember();
    setUser(u);
  }, []);

  const signOutHere = useCallback(() => {
    sessionStore.clear();
    queryClient.clear();
    setUser(null);
  }, []);

  const logout = useCallback(async () => {
    // The server revokes this token first, so a copy of it left elsewhere stops working too. Its
    // failure (offline, already expired) must never keep anyone signed in here.
    const revoke = authApi.logout().catch(() => undefined);
    await Promise.race([revoke, new Promise((resolve) => setTimeout(resolve, LOGOUT_WAIT_MS))]);
    signOutHere();
  }, [signOutHere]);

  const logoutEverywhere = useCallback(async () => {
    // Unlike «Cerrar Sesión», a failure here is told, not hidden: signing out only this browser
    // would leave the other devices signed in while the person believes they are not.
    await authApi.logoutAll();
    signOutHere();
  }, [signOutHere]);

  const switchOrganization = useCallback(async (id: number) => {
    const { token, me } = await authApi.switchOrganization(id);
    sessionStore.save(token, me.user);
    // Everything cached belonged to the other organisation.
    queryClient.clear();
    queryClient.setQueryData(MEMBER_QUERY_KEY, me);
    setUser(me.user);
  }, []);

  const value = useMemo(
    () => ({ user, isLoading, login, register, adoptSession, logout, logoutEverywhere, switchOrganization }),
    [user, isLoading, login, register, adoptSession, logout, logoutEverywhere, switchOrganization],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const ctx = useContext(AuthContext);
  if (!ctx) throw new Error('useAuth needs <AuthProvider>');
  return ctx;
}
