import { EventEmitter } from 'node:events';

/**
 * A started sync is a row in the database; the runner finds it by polling. In the same
 * process the API also rings this bell, so a sync starts at once instead of on the next poll.
 */
const bell = new EventEmitter();
bell.setMaxListeners(50);

export function wakeSyncRunner(): void {
  bell.emit('wake');
}

export function onSyncWake(listener: () => void): () => void {
  bell.on('wake', listener);
  return () => bell.off('wake', listener);
}

/**
 * A cancelled sync is already marked in the database (which other processes notice when they
 * renew their lease); in this process the runner hears it at once and stops the job's requests.
 */
export function announceSyncCancel(accountId: number): void {
  bell.emit('cancel', accountId);
}

export function onSyncCancel(listener: (accountId: number) => void): () => void {
  bell.on('cancel', listener);
  return () => bell.off('cancel', listener);
}
