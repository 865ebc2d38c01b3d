import type { AuthResponse, LoginInput, RegisterInput, User } from '@masivo/contract/auth';
import { api } from '@/lib/api-client';

export const authApi = {
  login: (input: LoginInput) => api.post<AuthResponse>('/auth/login', input),
  register: (input: RegisterInput) => api.post<AuthResponse>('/auth/register', input),
  me: () => api.get<User>('/auth/me'),
  /** Revokes every token of the user on the server. */
  logout: () => api.post<{ success: true }>('/auth/logout'),
};
