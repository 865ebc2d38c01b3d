// Common pieces of the two simulator servers.
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';

export function createApp(): FastifyInstance {
  return Fastify({
    logger: false,
    // Hanging "timeout" faults must not keep close() waiting for clients to give up.
    forceCloseConnections: true,
    bodyLimit: 5 * 1024 * 1024,
    // Default Fastify limits requests per socket to unlimited; keep-alive clients reuse sockets.
    keepAliveTimeout: 65_000,
  });
}

export async function listen(app: FastifyInstance, port: number, host: string): Promise<string> {
  await app.listen({ port, host });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return `http://${shownHost}:${address.port}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Holds requests open (the "timeout" fault) until the client goes away, `ms` passes, or the
 * server closes; close() releases every one so no timer keeps the process alive.
 */
export class Hangs {
  private pending = new Set<(why: HangEnd) => void>();

  wait(ms: number, onClientGone: (cb: () => void) => void): Promise<HangEnd> {
    return new Promise((resolve) => {
      const done = (why: HangEnd) => {
        clearTimeout(timer);
        this.pending.delete(done);
        resolve(why);
      };
      const timer = setTimeout(() => done('elapsed'), ms);
      this.pending.add(done);
      onClientGone(() => done('client_gone'));
    });
  }

  releaseAll(): void {
    for (const done of [...this.pending]) done('closing');
  }
}

export type HangEnd = 'elapsed' | 'client_gone' | 'closing';

/** Ends a held request: answers only if it was held for the full time, else drops the connection. */
export function endHang(why: HangEnd, reply: FastifyReply, answer: () => FastifyReply): FastifyReply {
  if (why === 'elapsed' && !reply.raw.destroyed) return answer();
  reply.hijack();
  reply.raw.destroy();
  return reply;
}

/** Reads a query value that Fastify may give as a string or as an array of strings. */
export function firstString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return undefined;
}

export function randomTraceId(length = 27): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
  let s = '';
  for (let i = 0; i < length; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return s;
}
