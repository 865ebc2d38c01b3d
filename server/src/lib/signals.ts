import { EventEmitter } from 'node:events';

/**
 * In-process nudges between the API and the engine of the same process: a pause reaches the
 * sender at once instead of at its next poll, a start wakes it, a requested sync starts now.
 * Other processes learn the same facts from the database within a poll interval, so nothing
 * depends on these; they only save a wait. One bus per AppContext, so tests that build several
 * contexts in one process never hear each other.
 */
export interface Signals {
  /** A campaign's status changed (started, paused, deleted, retried). */
  campaignChanged(campaignId: number): void;
  onCampaignChanged(listener: (campaignId: number) => void): () => void;
  /** A webhook POST was stored in the inbox. */
  webhookStored(): void;
  onWebhookStored(listener: () => void): () => void;
  /** A Kommo sync was requested: its row is already marked, the runner may claim it now. */
  syncRequested(): void;
  onSyncRequested(listener: () => void): () => void;
  /** A running sync was cancelled in the database; its runner stops the job's requests now. */
  syncCancelled(accountId: number): void;
  onSyncCancelled(listener: (accountId: number) => void): () => void;
  /** An outbound webhook delivery is due now (a test event, a resend): the delivery worker looks at once. */
  webhookDeliveryQueued(): void;
  onWebhookDeliveryQueued(listener: () => void): () => void;
  /** A Kommo webhook or catch-up finding landed in `kommo_inbox` (its drain job is queued): the inbound worker looks now. */
  kommoInboxStored(): void;
  onKommoInboxStored(listener: () => void): () => void;
}

export function createSignals(): Signals {
  const emitter = new EventEmitter();
  // Every sender of the process listens; their number is the number of WhatsApp accounts.
  emitter.setMaxListeners(0);
  const on =
    <A extends unknown[]>(event: string) =>
    (listener: (...args: A) => void) => {
      emitter.on(event, listener as (...args: unknown[]) => void);
      return () => void emitter.off(event, listener as (...args: unknown[]) => void);
    };
  return {
    campaignChanged: (campaignId) => void emitter.emit('campaign', campaignId),
    onCampaignChanged: on<[number]>('campaign'),
    webhookStored: () => void emitter.emit('webhook'),
    onWebhookStored: on<[]>('webhook'),
    syncRequested: () => void emitter.emit('sync'),
    onSyncRequested: on<[]>('sync'),
    syncCancelled: (accountId) => void emitter.emit('sync-cancel', accountId),
    onSyncCancelled: on<[number]>('sync-cancel'),
    webhookDeliveryQueued: () => void emitter.emit('webhook-out'),
    onWebhookDeliveryQueued: on<[]>('webhook-out'),
    kommoInboxStored: () => void emitter.emit('kommo-inbox'),
    onKommoInboxStored: on<[]>('kommo-inbox'),
  };
}
