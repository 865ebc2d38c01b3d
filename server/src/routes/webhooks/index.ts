import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../lib/errors';
import { createRateLimiter } from '../../services/auth/rate-limiter';
import { isKnownVerifyToken, storeWebhook } from '../../services/webhooks/webhook-events';
import { cleanWebhookPayload } from './clean-payload';
import { isValidSignature } from './signature';

const verifyQuerySchema = z.object({
  'hub.mode': z.string().max(100).optional(),
  'hub.verify_token': z.string().max(500).optional(),
  'hub.challenge': z.string().max(500).optional(),
});

/** Meta batches updates in one POST; real ones stay far below this, and nothing is buffered unsigned. */
const WEBHOOK_BODY_LIMIT = 2 * 1024 * 1024;
/** Meta verifies a subscription once; many wrong tokens from one address are guesses. */
const VERIFY_FAILURES_ALLOWED = 20;
const VERIFY_WINDOW_MS = 10 * 60 * 1000;

const NO_SECRET = 'Webhooks de WhatsApp deshabilitados: falta configurar WHATSAPP_APP_SECRET';
const BAD_SIGNATURE = 'Firma del webhook inválida';

/**
 * Meta's webhook for every WhatsApp number of every user. Public: Meta
 * authenticates with the verify token (GET) and the body signature (POST). A POST is only
 * stored and answered; the engine's inbox applies it (statuses, opt-outs, template updates).
 */
export default async function webhookRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;

  // The signature covers the raw bytes, so this plugin keeps JSON bodies unparsed.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) =>
    done(null, body),
  );

  // Refused before a single byte of the body is read: an unsigned POST costs no memory.
  app.addHook('onRequest', async (request) => {
    if (request.method !== 'POST') return;
    if (!ctx.config.WHATSAPP_APP_SECRET) throw new AppError(403, NO_SECRET);
    const header = request.headers['x-hub-signature-256'];
    const value = Array.isArray(header) ? header[0] : header;
    if (!value?.startsWith('sha256=')) throw new AppError(403, BAD_SIGNATURE);
  });

  // The handshake tells whether some account uses a token: an oracle, so guesses are rationed.
  const verifyFailures = createRateLimiter({ limit: VERIFY_FAILURES_ALLOWED, windowMs: VERIFY_WINDOW_MS });

  app.get(
    '/whatsapp',
    { config: { public: true }, schema: { tags: ['webhooks'], querystring: verifyQuerySchema } },
    async (request, reply) => {
      if (verifyFailures.isLimited(request.ip)) {
        throw new AppError(429, 'Demasiados intentos de verificación. Intenta de nuevo en unos minutos.');
      }
      const q = request.query;
      const token = q['hub.verify_token'] ?? '';
      const known = q['hub.mode'] === 'subscribe' && (await isKnownVerifyToken(ctx.db, token));
      if (!known) {
        verifyFailures.hit(request.ip);
        throw new AppError(403, 'Token de verificación inválido');
      }
      return reply.code(200).type('text/plain; charset=utf-8').send(q['hub.challenge'] ?? '');
    },
  );

  app.post(
    '/whatsapp',
    { config: { public: true }, bodyLimit: WEBHOOK_BODY_LIMIT, schema: { tags: ['webhooks'] } },
    async (request, reply) => {
      const secret = ctx.config.WHATSAPP_APP_SECRET;
      if (!secret) throw new AppError(403, NO_SECRET);
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['x-hub-signature-256'];
      if (!isValidSignature(raw, Array.isArray(header) ? header[0] : header, secret)) {
        throw new AppError(403, BAD_SIGNATURE);
      }
      const payload = cleanWebhookPayload(raw);
      if (payload === null) throw new AppError(400, 'El cuerpo de la petición no es JSON válido');
      await storeWebhook(ctx.db, payload);
      ctx.signals.webhookStored();
      return reply.code(200).send({ received: true });
    },
  );
}
