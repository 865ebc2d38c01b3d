import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { AppError } from '../../lib/errors';
import { campaignSignals } from '../../services/campaigns/campaign-signals';
import { pgCode, rowsOf } from '../../services/campaigns/sql';
import { isValidSignature } from './signature';

const verifyQuerySchema = z.object({
  'hub.mode': z.string().max(100).optional(),
  'hub.verify_token': z.string().max(500).optional(),
  'hub.challenge': z.string().max(500).optional(),
});

/** PostgreSQL's invalid_text_representation, raised by a body that is not JSON. */
const INVALID_JSON = '22P02';
/** Meta may batch up to a thousand updates in one POST. */
const WEBHOOK_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * Meta's webhook for every WhatsApp number of every user (DECISIONS.md §5). Public: Meta
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

  app.get(
    '/whatsapp',
    { config: { public: true }, schema: { tags: ['webhooks'], querystring: verifyQuerySchema } },
    async (request, reply) => {
      const q = request.query;
      const token = q['hub.verify_token'] ?? '';
      const known =
        q['hub.mode'] === 'subscribe' && token !== ''
          ? await rowsOf(ctx.db, sql`select 1 from whatsapp_accounts where webhook_verify_token = ${token} limit 1`)
          : [];
      if (!known.length) throw new AppError(403, 'Token de verificación inválido');
      return reply.code(200).type('text/plain; charset=utf-8').send(q['hub.challenge'] ?? '');
    },
  );

  app.post(
    '/whatsapp',
    { config: { public: true }, bodyLimit: WEBHOOK_BODY_LIMIT, schema: { tags: ['webhooks'] } },
    async (request, reply) => {
      const secret = ctx.config.WHATSAPP_APP_SECRET;
      if (!secret) throw new AppError(403, 'Webhooks de WhatsApp deshabilitados: falta configurar WHATSAPP_APP_SECRET');
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['x-hub-signature-256'];
      if (!isValidSignature(raw, Array.isArray(header) ? header[0] : header, secret)) {
        throw new AppError(403, 'Firma del webhook inválida');
      }
      // jsonb refuses the NUL character; nothing meaningful is lost by dropping it.
      const text = raw.toString('utf8').replace(/\\u0000/g, '');
      try {
        // The database parses the JSON once, as it stores it.
        await ctx.db.execute(sql`insert into webhook_events (payload) values (${text}::jsonb)`);
      } catch (err) {
        if (pgCode(err) === INVALID_JSON) throw new AppError(400, 'El cuerpo de la petición no es JSON válido');
        throw err;
      }
      campaignSignals(ctx).webhookStored();
      return reply.code(200).send({ received: true });
    },
  );
}
