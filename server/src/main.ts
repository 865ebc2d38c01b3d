import { startServer } from './server';

const server = await startServer();
if (server.url) console.log(`Consola disponible en ${server.url} (API en ${server.url}/api, documentación en ${server.url}/api/docs)`);
else console.log('Proceso de trabajo iniciado (ROLE=worker)');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
// A failure of Kommo or Meta must never take the process down; log and keep serving.
process.on('unhandledRejection', (reason) => console.error('unhandled rejection', reason));
