import { errors as undiciErrors } from 'undici';

/** Whether an outbound call failed by running out of time (connect, headers, body or our own abort signal). */
export function isTimeout(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return (
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError ||
    err instanceof undiciErrors.ConnectTimeoutError ||
    name === 'TimeoutError' ||
    name === 'AbortError'
  );
}
