import { useEffect } from 'react';
import toast from 'react-hot-toast';
import { errorMessage } from './api-client';

/**
 * Spec §8: a failed load is an error toast with the server's message, not an empty screen.
 * The toast id is the fallback text, so a query that keeps failing on refetch shows one toast.
 */
export function useErrorToast(error: unknown, fallback: string): void {
  useEffect(() => {
    if (error) toast.error(errorMessage(error, fallback), { id: `load-error:${fallback}` });
  }, [error, fallback]);
}
