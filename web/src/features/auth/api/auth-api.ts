import type { AuthResponse, LoginInput, RegisterInput, User } from '@masivo/contract/auth';
import type { Me } from '@masivo/contract/organizations';
import { api } from '@/lib/api-client';

export const authApi = {
  login: (input: LoginInput) => api.post<AuthResponse>('/auth/login', input),
  register: (input: RegisterInput) => api.post<AuthResponse>('/auth/register', input),
  me: () => api.get<User>('/auth/me'),
  /** The member: the organisation this session acts in, the role there, its permissions and scope. */
  member: () => api.get<Me>('/me'),
  /** A session acting in another of the user's organisations. */
  switchOrganization: (id: number) => api.post<{ token: string; me: Me }>(`/organizations/${id}/switch`),
  /** «Cerrar Sesión»: revokes this token only; the user's other devices stay signed in. */
  logout: () => api.post<{ success: true }>('/auth/logout'),
  /** «Cerrar sesión en todos los dispositivos»: revokes every token of the user, this one too. */
  logoutAll: () => api.post<{ success: true }>('/auth/logout-all'),
};
