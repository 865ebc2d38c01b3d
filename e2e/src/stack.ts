import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKommoSim, type KommoSim } from '@masivo/simulators/kommo';
import { startWhatsAppSim, type WhatsAppSim } from '@masivo/simulators/whatsapp';
import { loadConfig } from '../../server/src/config';
import { startServer } from '../../server/src/server';

export const WHATSAPP_APP_SECRET = 'e2e-whatsapp-app-secret';

export interface Stack {
  baseUrl: string;
  kommo: KommoSim;
  whatsapp: WhatsAppSim;
  stop(): Promise<void>;
}

/**
 * The real console (built web app + API + background work on a fresh embedded database)
 * wired to both simulators, all on free 127.0.0.1 ports.
 */
export async function startStack(
  opts: { kommo?: Parameters<typeof startKommoSim>[0]; whatsapp?: Parameters<typeof startWhatsAppSim>[0]; env?: Record<string, string> } = {},
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
  return {
    baseUrl,
    kommo,
    whatsapp,
    async stop() {
      await server.stop();
      await Promise.allSettled([kommo.close(), whatsapp.close()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Calls the console's API as a signed-in user (for test setup that other e2e files cover in the browser). */
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
