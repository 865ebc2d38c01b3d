import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WhatsAppSimOptions } from '@masivo/simulators/whatsapp';

const here = dirname(fileURLToPath(import.meta.url));
const tsxLoader = createRequire(import.meta.url).resolve('tsx');

/**
 * The WhatsApp simulator in a process of its own, driven through its /__control endpoints.
 * Rate measurements need this: in the same process, the simulator would timestamp requests
 * late whenever the server's own work (an embedded database query) holds the event loop.
 */
export interface RemoteWhatsAppSim {
  url: string;
  graphUrl: string;
  pid: number;
  control<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>;
  messages(limit?: number): Promise<{ total: number; messages: Array<{ to: string; bizOpaque: string | null; at: number; phoneNumberId: string }> }>;
  maxInAnyWindow(phoneNumberId: string, windowMs?: number): Promise<number>;
  timestamps(phoneNumberId: string): Promise<number[]>;
  duplicates(): Promise<Array<{ to: string; bizOpaque: string | null; count: number }>>;
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export async function startWhatsAppSimProcess(options: WhatsAppSimOptions = {}): Promise<RemoteWhatsAppSim> {
  // SIM_CPU_PROF=<dir>: the simulator writes a CPU profile there when it exits (what a bench's
  // simulator costs per message; docs/SCALING.md).
  const profile = process.env.SIM_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.SIM_CPU_PROF] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, '--import', tsxLoader, join(here, 'whatsapp-sim-main.ts'), JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /READY (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`simulator exited (${code})`)));
  });
  const control = async <T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> => {
    const res = await fetch(url + '/__control' + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`sim ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  return {
    url,
    graphUrl: `${url}/v23.0`,
    pid: child.pid!,
    control,
    messages: (limit = 100) => control('GET', `/messages?limit=${limit}`),
    maxInAnyWindow: async (id, windowMs = 1000) =>
      (await control<{ max: number }>('GET', `/max-window?phoneNumberId=${id}&windowMs=${windowMs}`)).max,
    timestamps: (id) => control('GET', `/timestamps?phoneNumberId=${id}`),
    duplicates: () => control('GET', '/duplicates'),
    counts: () => control('GET', '/counts'),
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
