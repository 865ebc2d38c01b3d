import { QueryClient } from '@tanstack/react-query';

// Spec §9: data is fresh for 5 minutes and kept for 10.
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { staleTime: 5 * 60 * 1000, gcTime: 10 * 60 * 1000, retry: 1, refetchOnWindowFocus: false },
  },
});
