import cluster from 'node:cluster';
import { runApiCluster } from './cluster';
import { loadConfig } from './config';
import { SHUTDOWN_BUDGET_MS, startServer } from './server';

const config = loadConfig();
// A process of an API cluster is a cluster worker running this same file.
if (cluster.isPrimary && config.ROLE === 'api' && config.API_PROCESSES > 1) await runApiCluster(config);
else await serve();

async function serve() {
  const server = await startServer(config);
  if (cluster.isWorker) {
    // The primary announces the cluster once every process listens (cluster.ts).
  } else if (server.ctx.config.ROLE !== 'worker') {
    console.log(`Consola disponible en ${server.url} (API en ${server.url}/api, documentación en ${server.url}/api/docs)`);
  } else console.log(`Proceso de trabajo iniciado (ROLE=worker; salud y métricas en ${server.url})`);

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      // Whatever hangs (a stuck query, a dead peer), the process is gone within 10 s.
      setTimeout(() => {
        console.error('el cierre superó el plazo: saliendo');
        process.exit(1);
      }, SHUTDOWN_BUDGET_MS + 1_500).unref();
      server.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
// A failure of Kommo or Meta must never take the process down; log and keep serving.
process.on('unhandledRejection', (reason) => console.error('unhandled rejection', reason));
