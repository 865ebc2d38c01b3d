import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/** Meta's `X-Hub-Signature-256` for a body, under the app secret the console is configured with. */
export const signWebhook = (body: string, secret: string) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');

/** POSTs a payload to the webhook as Meta does: raw JSON, signed (extra headers may override). */
export function postWebhook(app: FastifyInstance, secret: string, payload: unknown, headers: Record<string, string> = {}) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return app.inject({
    method: 'POST',
    url: '/api/webhooks/whatsapp',
    payload: body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signWebhook(body, secret), ...headers },
  });
}
