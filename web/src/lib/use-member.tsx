import type { Me, Permission } from '@masivo/contract/organizations';
import { useQuery } from '@tanstack/react-query';
import { useCallback, type ReactNode } from 'react';
import { api } from './api-client';
import { sessionStore } from './session-storage';

/** GET /api/me: also written by the organisation switch, so it is one key for the whole app. */
export const MEMBER_QUERY_KEY = ['me'] as const;

export const fetchMe = () => api.get<Me>('/me');

/** The query itself, for screens that show its loading and error states. */
export const useMeQuery = () =>
  useQuery({ queryKey: MEMBER_QUERY_KEY, queryFn: fetchMe, enabled: !!sessionStore.token(), staleTime: 60_000 });

/**
 * The signed-in member in the organisation this session acts in. Screens hide what the role
 * does not allow; the server checks every call again, so this only spares dead buttons.
 */
export function useMember() {
  const query = useMeQuery();
  const me = query.data ?? null;
  // Before the answer (the shell loads it with the session, so only screens rendered alone wait)
  // nothing is hidden: a member without the permission would only get the server's refusal.
  const can = useCallback((permission: Permission) => !me || me.permissions.includes(permission), [me]);
  return { me, can, isLoading: query.isLoading };
}

/** Renders its children only for members whose role has `permission`. */
export function Can({ permission, children }: { permission: Permission; children: ReactNode }) {
  return useMember().can(permission) ? <>{children}</> : null;
}
