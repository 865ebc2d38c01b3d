import { EventEmitter } from 'node:events';
import type { AppContext } from '../../context';

/**
 * In-process nudges from the API to the engine of the same process: a pause reaches the
 * sender at once instead of at its next poll, a start wakes it. Other processes learn the
 * same facts from the database within a poll interval, so nothing depends on these.
 */
export interface CampaignSignals {
  /** A campaign's status changed (started, paused, deleted, retried). */
  changed(campaignId: number): void;
  onChanged(listener: (campaignId: number) => void): () => void;
  /** A webhook POST was stored in the inbox. */
  webhookStored(): void;
  onWebhookStored(listener: () => void): () => void;
}

const byContext = new WeakMap<AppContext, CampaignSignals>();

export function campaignSignals(ctx: AppContext): CampaignSignals {
  let signals = byContext.get(ctx);
  if (!signals) {
    const emitter = new EventEmitter();
    emitter.setMaxListeners(0);
    signals = {
      changed: (campaignId) => emitter.emit('changed', campaignId),
      onChanged(listener) {
        emitter.on('changed', listener);
        return () => emitter.off('changed', listener);
      },
      webhookStored: () => emitter.emit('webhook'),
      onWebhookStored(listener) {
        emitter.on('webhook', listener);
        return () => emitter.off('webhook', listener);
      },
    };
    byContext.set(ctx, signals);
  }
  return signals;
}
