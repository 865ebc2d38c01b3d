import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config';
import { openDatabase } from './db/client';
import { migrate } from './db/migrate';
import { serveClusterMetrics } from './lib/metrics';
import { SHUTDOWN_BUDGET_MS } from './server';

/** A process that dies sooner than this after its start counts as a crash loop: the wait before its restart doubles. */
const STABLE_MS = 10_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 10_000;
/** Each API process exits within SHUTDOWN_BUDGET_MS + 1.5 s (main.ts); past this, the rest are killed. */
const STOP_DEADLINE_MS = SHUTDOWN_BUDGET_MS + 1_800;

/**
 * ROLE=api with API_PROCESSES > 1: this process (the primary) migrates the database once, then
 * forks that many API processes (main.ts again, as cluster workers) which share PORT; the
 * primary hands each new connection to the next process. It serves no request itself: it
 * restarts a process that dies (with a growing wait while they keep dying), answers their
 * requests for the cluster's metrics, and on SIGTERM/SIGINT stops them all and exits.
 */
export async function runApiCluster(config: Config): Promise<void> {
  // Before any process starts: their own migrate then finds nothing to do.
  const database = await openDatabase({
    url: config.DATABASE_URL,
    poolSize: 1,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
  });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
  serveClusterMetrics();

  const total = config.API_PROCESSES;
  let stopping = false;
  let announced = false;
  const slots = new Map<Worker, { slot: number; startedAt: number }>();
  const crashes = new Map<number, number>();
  const listening = new Set<Worker>();

  const start = (slot: number) => {
    const worker = cluster.fork({ API_PROCESS_SLOT: String(slot) });
    slots.set(worker, { slot, startedAt: Date.now() });
    worker.once('listening', (address) => {
      listening.add(worker);
      console.log(`Proceso de API ${slot + 1}/${total} escuchando (pid ${worker.process.pid})`);
      if (!announced && listening.size === total) {
        announced = true;
        const host = address.address && address.address !== '::' && address.address !== '0.0.0.0' ? address.address : 'localhost';
        const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
        console.log(`Consola disponible en ${url} (API en ${url}/api, documentación en ${url}/api/docs; ${total} procesos de API)`);
      }
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const info = slots.get(worker);
    slots.delete(worker);
    listening.delete(worker);
    if (!info || stopping) return;
    const lived = Date.now() - info.startedAt;
    const streak = lived < STABLE_MS ? (crashes.get(info.slot) ?? 0) + 1 : 0;
    crashes.set(info.slot, streak);
    const wait = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** streak);
    console.error(
      `el proceso de API ${info.slot + 1}/${total} (pid ${worker.process.pid}) terminó inesperadamente (${signal ?? `código ${code}`}); se reinicia en ${wait} ms`,
    );
    setTimeout(() => {
      if (!stopping) start(info.slot);
    }, wait);
  });

  for (let slot = 0; slot < total; slot++) start(slot);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      stopping = true;
      const workers = [...slots.keys()];
      let failed = false;
      const gone = workers.map(
        (w) =>
          new Promise<void>((resolve) => {
            if (w.isDead()) return resolve();
            w.once('exit', (code) => {
              if (code !== 0) failed = true;
              resolve();
            });
            w.process.kill('SIGTERM');
          }),
      );
      // Whatever hangs, the cluster is gone within 10 s.
      setTimeout(() => {
        console.error('el cierre de los procesos de API superó el plazo: se terminan');
        for (const w of workers) if (!w.isDead()) w.process.kill('SIGKILL');
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      void Promise.all(gone).then(() => process.exit(failed ? 1 : 0));
    });
  }
}
