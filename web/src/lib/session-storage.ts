import type { User } from '@masivo/contract/auth';

/** Spec §9: the session lives in local storage under these two keys. */
export const TOKEN_KEY = 'token';
export const USER_KEY = 'user';

export const sessionStore = {
  token: () => localStorage.getItem(TOKEN_KEY),
  user(): User | null {
    try {
      return JSON.parse(localStorage.getItem(USER_KEY) ?? 'null');
    } catch {
      return null;
    }
  },
  save(token: string, user: User) {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(USER_KEY, JSON.stringify(user));
  },
  clear() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(USER_KEY);
  },
};
