import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKommoSim, type KommoSim } from '@masivo/simulators/kommo';
import { startWhatsAppSim, type WhatsAppSim } from '@masivo/simulators/whatsapp';
import { loadConfig } from '../../server/src/config';
import { startServer } from '../../server/src/server';
import type { AppContext } from '../../server/src/context';

export const WHATSAPP_APP_SECRET = 'e2e-whatsapp-app-secret';

export interface Stack {
  baseUrl: string;
  kommo: KommoSim;
  whatsapp: WhatsAppSim;
  /** The server's process context (its database), for a test that must move time along (a split test's wait). */
  ctx: AppContext;
  stop(): Promise<void>;
}

/**
 * The real console (built web app + API + background work on a fresh embedded database)
 * wired to both simulators, all on free 127.0.0.1 ports.
 */
export async function startStack(
  opts: {
    kommo?: Parameters<typeof startKommoSim>[0];
    whatsapp?: Parameters<typeof startWhatsAppSim>[0];
    env?: Record<string, string>;
    /** PUBLIC_URL is the server's own address, so the Kommo simulator's webhooks reach it. */
    publicUrlIsServer?: boolean;
  } = {},
): Promise<Stack> {
  const kommo = await startKommoSim(opts.kommo ?? {});
  const whatsapp = await startWhatsAppSim({ appSecret: WHATSAPP_APP_SECRET, webhookUrl: null, ...opts.whatsapp });
  const dataDir = mkdtempSync(join(tmpdir(), 'masivo-e2e-'));
  const server = await startServer(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      KOMMO_BASE_URL: kommo.baseUrlTemplate,
      WHATSAPP_GRAPH_URL: whatsapp.graphUrl,
      WHATSAPP_APP_SECRET,
      WHATSAPP_APP_ID: whatsapp.appId,
      PUBLIC_URL: 'http://127.0.0.1:3000',
      ...opts.env,
    }),
  );
  const baseUrl = server.url!;
  whatsapp.configure({ webhookUrl: `${baseUrl}/api/webhooks/whatsapp` });
  // Kommo's webhooks are subscribed to PUBLIC_URL: point it at this server (as `npm run demo` does),
  // unless a test names its own (what the screens show of it).
  if (opts.env?.PUBLIC_URL === undefined && opts.publicUrlIsServer) server.ctx.config.PUBLIC_URL = baseUrl;
  return {
    baseUrl,
    kommo,
    whatsapp,
    ctx: server.ctx,
    async stop() {
      await server.stop();
      await Promise.allSettled([kommo.close(), whatsapp.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Calls the console's API as a signed-in user (for test setup that other e2e files cover in the browser). */
export type ConsoleApi = ReturnType<typeof apiAs>;

export function apiAs(baseUrl: string, token: string) {
  const call = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${baseUrl}/api${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  return {
    get: <T = any>(path: string) => call<T>('GET', path),
    post: <T = any>(path: string, body: unknown = {}) => call<T>('POST', path, body),
    put: <T = any>(path: string, body: unknown = {}) => call<T>('PUT', path, body),
    delete: <T = any>(path: string) => call<T>('DELETE', path),
  };
}

type WhatsAppSimOptions = NonNullable<Parameters<typeof startWhatsAppSim>[0]>;
type SimTemplate = Omit<NonNullable<WhatsAppSimOptions['templates']>[number], 'wabaId' | 'language'> & { language?: string };

/** What a campaign test sets up: one Kommo account, one WhatsApp number and its templates. */
export interface OneNumberWorld {
  kommo: { subdomain: string; token: string; contacts: number; seed: number; rps?: number };
  number: { phoneNumberId: string; wabaId: string; token: string; displayPhoneNumber: string; throughput?: number };
  /** Approved templates of the number's WABA; Spanish unless they say otherwise. */
  templates: SimTemplate[];
  /** Kommo contacts given a known phone and tags (the rest keep the generated ones). */
  audience?: Array<{ id: number; phone: string | null; tags?: string[] }>;
  /** Every message is delivered; `readRate` of them read (default all), statuses after `statusDelayMs`. */
  readRate?: number;
  statusDelayMs?: number;
  whatsapp?: Partial<WhatsAppSimOptions>;
  /** PUBLIC_URL is the server's own address, so the Kommo simulator's webhooks reach it. */
  publicUrlIsServer?: boolean;
}

/**
 * The one stack definition the campaign tests share: the console wired to a Kommo account and a
 * WhatsApp number (80 msg/s) whose templates are approved, every message delivered.
 */
export async function startOneNumberStack(w: OneNumberWorld): Promise<Stack> {
  const stack = await startStack({
    kommo: { accounts: [{ subdomain: w.kommo.subdomain, token: w.kommo.token, contacts: w.kommo.contacts, seed: w.kommo.seed }], rps: w.kommo.rps ?? 50 },
    whatsapp: {
      numbers: [{ throughput: 80, ...w.number }],
      templates: w.templates.map((t) => ({ language: 'es', ...t, wabaId: w.number.wabaId })),
      deliveryRate: 1,
      readRate: w.readRate ?? 1,
      statusDelayMs: w.statusDelayMs ?? 30,
      ...w.whatsapp,
    },
    publicUrlIsServer: w.publicUrlIsServer,
  });
  for (const c of w.audience ?? []) stack.kommo.updateContact(w.kommo.subdomain, c.id, { phone: c.phone, ...(c.tags ? { tags: c.tags } : {}) });
  return stack;
}
