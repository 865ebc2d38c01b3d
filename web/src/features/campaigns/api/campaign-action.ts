import { useMutation, useQueryClient, type QueryClient } from '@tanstack/react-query';
import toast from 'react-hot-toast';
import { errorMessage } from '@/lib/api-client';
import { campaignsKeys } from '@/api/campaigns';

interface ActionOptions {
  success: string;
  error: string;
  /** How the cache follows a success; by default every campaign query refetches. */
  refresh?: (qc: QueryClient, id: number) => Promise<unknown> | void;
}

/**
 * Start, pause, retry and delete share one shape: call, toast the spec's message (the
 * server's error when present, spec §8), refresh the campaign queries.
 */
export function useCampaignAction<T>(call: (id: number) => Promise<T>, opts: ActionOptions) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: (_data, id) => {
      toast.success(opts.success);
      return opts.refresh ? opts.refresh(qc, id) : qc.invalidateQueries({ queryKey: campaignsKeys.all });
    },
    onError: (err) => {
      toast.error(errorMessage(err, opts.error));
    },
  });
}
