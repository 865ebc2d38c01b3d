import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/**
 * A local webhook receiver (node:http on 127.0.0.1): each path answers what `answer` says
 * (status, optional delay or headers), and every request is kept. `close()` takes it down and
 * `listen()` brings it back on the same port, as a receiver that goes away for a while.
 */
export class TestReceiver {
  readonly received: Received[] = [];
  answer: (path: string, n: number) => { status: number; delayMs?: number; headers?: Record<string, string>; body?: string } = () => ({ status: 200 });
  private server: Server | null = null;
  port = 0;

  async listen(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const n = this.received.filter((r) => r.path === path).length;
        const a = this.answer(path, n);
        this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status: a.status });
        setTimeout(() => {
          res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
          res.end(a.body ?? (a.status < 300 ? 'ok' : 'error'));
        }, a.delayMs ?? 0);
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  url(path: string) {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }

  async close() {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
