// A tiny webhook endpoint for tests: keeps every POST, checks X-Hub-Signature-256 over the raw
// bytes in constant time, and can be told to fail the next N deliveries.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  raw: Buffer;
  body: any;
  signatureValid: boolean;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Answer the next `n` POSTs with `status` instead of 200. */
  failNext(n: number, status?: number): void;
  /** Wait this long before answering each POST. */
  setDelay(ms: number): void;
  /** Every status object received, in arrival order. */
  statuses(): any[];
  close(): Promise<void>;
}

export function verifySignature(raw: Buffer, header: string | undefined, secret: string): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'), 'utf8');
  const given = Buffer.from(header.slice('sha256='.length), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const received: Received[] = [];
  let failures = 0;
  let failStatus = 500;
  let delayMs = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => setTimeout(() => {
      if (failures > 0) {
        failures--;
        res.statusCode = failStatus;
        res.end('fail');
        return;
      }
      const raw = Buffer.concat(chunks);
      const header = req.headers['x-hub-signature-256'];
      received.push({ raw, body: JSON.parse(raw.toString('utf8')), signatureValid: verifySignature(raw, typeof header === 'string' ? header : undefined, secret) });
      res.end('EVENT_RECEIVED');
    }, delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/webhooks/whatsapp`,
    received,
    failNext: (n, status = 500) => {
      failures = n;
      failStatus = status;
    },
    setDelay: (ms) => {
      delayMs = ms;
    },
    statuses: () => received.flatMap((r) => r.body.entry.flatMap((e: any) => e.changes.flatMap((c: any) => c.value.statuses ?? []))),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
