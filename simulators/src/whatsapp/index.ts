// WhatsApp Cloud API simulator: see simulators/README.md.
import { createApp, Hangs, listen } from '../shared/server';
import { registerWhatsAppControl } from './control';
import { graphError } from './errors';
import { SIM_APP_ID } from './media';
import { registerGraphRoutes } from './routes';
import { WhatsAppState } from './state';
import type {
  LatencyJitter, NumberInput, RecipientBehaviour, RecordedMessage, TemplateInput, WhatsAppConfig, WhatsAppFault,
} from './types';

export type { LatencyJitter, NumberInput, RecipientBehaviour, RecordedMessage, TemplateInput, WhatsAppConfig, WhatsAppFault };
export { sign as signWebhookBody } from './webhooks';

export interface WhatsAppSimOptions {
  port?: number;
  host?: string;
  appSecret?: string;
  webhookUrl?: string | null;
  numbers?: NumberInput[];
  templates?: TemplateInput[];
  approvalDelayMs?: number;
  rejectTemplatesMatching?: RegExp | null;
  latencyMs?: number;
  /** Jitter before a send is counted (e.g. { baseMs: 5, tailMeanMs: 15, capMs: 80 }). */
  latencyJitter?: LatencyJitter | null;
  deliveryRate?: number;
  readRate?: number;
  failRate?: number;
  statusDelayMs?: number;
  webhookBatchMax?: number;
  pairLimit?: number;
  managementHourlyLimit?: number;
}

export type WhatsAppConfigurable = Partial<Pick<WhatsAppConfig,
  'webhookUrl' | 'appSecret' | 'latencyMs' | 'latencyJitter' | 'deliveryRate' | 'readRate' | 'failRate' | 'failCode' | 'statusDelayMs'
  | 'approvalDelayMs' | 'duplicateWebhooks' | 'reorderWebhooks' | 'webhookRetry' | 'webhookBatchMax' | 'pairLimit'
  | 'managementHourlyLimit' | 'rejectTemplatesMatching'>>;

export interface WhatsAppSim {
  url: string;
  /** `${url}/v23.0`: the value for WHATSAPP_GRAPH_URL. */
  graphUrl: string;
  /** The simulated Meta app's id: the value for WHATSAPP_APP_ID. */
  appId: string;
  addNumber(n: NumberInput): void;
  addTemplate(t: TemplateInput): void;
  configure(p: WhatsAppConfigurable): void;
  setThroughput(phoneNumberId: string, perSecond: number): void;
  setRecipientBehaviour(phoneE164Digits: string, b: RecipientBehaviour): void;
  injectFault(f: WhatsAppFault): void;
  sendInbound(p: { phoneNumberId: string; from: string; text: string }): Promise<void>;
  messages(): RecordedMessage[];
  countsByRecipient(): Map<string, number>;
  duplicates(): Array<{ to: string; bizOpaque: string | null; count: number }>;
  timestamps(phoneNumberId: string): number[];
  maxInAnyWindow(phoneNumberId: string, windowMs?: number): number;
  templatesOf(wabaId: string): any[];
  /** Media uploaded to /{phone-number-id}/media: id, number, type and size. */
  mediaUploads(): Array<{ id: string; phoneNumberId: string; mime: string; size: number; filename: string | null }>;
  webhookStats(): { sent: number; failed: number; pending: number; posts: number };
  flushWebhooks(): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

export async function startWhatsAppSim(opts: WhatsAppSimOptions = {}): Promise<WhatsAppSim> {
  const state = new WhatsAppState({
    webhookUrl: null,
    appSecret: opts.appSecret ?? 'sim-app-secret',
    latencyMs: opts.latencyMs ?? 0,
    latencyJitter: null,
    deliveryRate: opts.deliveryRate ?? 1,
    readRate: opts.readRate ?? 0.8,
    failRate: opts.failRate ?? 0,
    failCode: 131049,
    statusDelayMs: opts.statusDelayMs ?? 50,
    approvalDelayMs: opts.approvalDelayMs ?? 500,
    rejectTemplatesMatching: opts.rejectTemplatesMatching ?? null,
    webhookBatchMax: opts.webhookBatchMax ?? 100,
    duplicateWebhooks: false,
    reorderWebhooks: false,
    webhookRetry: true,
    pairLimit: opts.pairLimit ?? 5,
    managementHourlyLimit: opts.managementHourlyLimit ?? 5000,
  });
  // Through configure() so the URL is validated the same way as later changes.
  state.configure({ webhookUrl: opts.webhookUrl ?? null, latencyJitter: opts.latencyJitter ?? null });
  for (const n of opts.numbers ?? []) state.addNumber(n);
  for (const t of opts.templates ?? []) state.addTemplate(t);

  const hangs = new Hangs();
  const app = createApp();
  app.setNotFoundHandler((req, reply) => {
    const e = graphError(100, `Unknown path components: ${req.url.split('?')[0]}`);
    return reply.code(e.status).send(e.body);
  });
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    if (req.url.startsWith('/__control')) return reply.code(err.statusCode ?? 400).send({ error: err.message });
    // Unparseable JSON and the like: Graph answers code 100.
    const status = err.statusCode && err.statusCode < 500 ? 400 : 500;
    const e = status === 400 ? graphError(100, err.message) : graphError(1, err.message, {}, 500);
    return reply.code(e.status).send(e.body);
  });
  registerGraphRoutes(app, state, hangs);
  registerWhatsAppControl(app, state);
  app.addHook('onClose', async () => hangs.releaseAll());

  const url = await listen(app, opts.port ?? 0, opts.host ?? '127.0.0.1');
  return {
    url,
    graphUrl: `${url}/v23.0`,
    appId: SIM_APP_ID,
    addNumber: (n) => void state.addNumber(n),
    addTemplate: (t) => void state.addTemplate(t),
    configure: (p) => state.configure(p),
    setThroughput: (id, perSecond) => state.setThroughput(id, perSecond),
    setRecipientBehaviour: (phone, b) => state.setRecipientBehaviour(phone, b),
    injectFault: (f) => state.injectFault(f),
    sendInbound: (p) => state.sendInbound(p),
    messages: () => state.log.messages(),
    countsByRecipient: () => state.log.countsByRecipient(),
    duplicates: () => state.log.duplicates(),
    timestamps: (id) => state.log.timestamps(id),
    maxInAnyWindow: (id, windowMs) => state.log.maxInAnyWindow(id, windowMs),
    templatesOf: (wabaId) => state.templates.list(wabaId).map((t) => ({ ...t })),
    mediaUploads: () => state.media.list(),
    webhookStats: () => state.webhooks.stats(),
    flushWebhooks: () => state.webhooks.flush(),
    reset: () => state.reset(),
    close: async () => {
      hangs.releaseAll();
      await app.close();
      await state.close();
    },
  };
}
