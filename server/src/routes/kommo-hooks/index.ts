import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HOOK_SECRET_PATTERN, kommoHookBodySchema, kommoHookParamsSchema } from '@masivo/contract/kommo-inbound';
import { HookFormError, HOOK_FORM_LIMITS, parseHookForm } from '../../integrations/kommo/hook-form';
import { AppError, notFound } from '../../lib/errors';
import { createRateLimiter } from '../../services/auth/rate-limiter';
import { queueInboxDrain } from '../../services/kommo-inbound/drain-jobs';
import { findHookAccount, storeHookBody, type HookAccount } from '../../services/kommo-inbound/hook-inbox';

/** Wrong addresses one client may try before it is told to wait: addresses are not to be guessed. */
const MISSES_ALLOWED = 30;
const MISS_WINDOW_MS = 10 * 60_000;
/**
 * Webhooks one account may post per minute in this process. Kommo sends a POST per change (a
 * few items each); a bulk edit of thousands comes in well under this. Past it the POST is
 * refused (429) and the catch-up picks the change up within a minute, so no account can hold
 * the database for the others.
 */
const POSTS_PER_ACCOUNT_MINUTE = 1_200;

const NOT_FOUND = 'No encontrado';

declare module 'fastify' {
  interface FastifyRequest {
    kommoHookAccount?: HookAccount;
  }
}

/**
 * Kommo's webhooks for every Kommo account: `POST /api/kommo-hooks/:secret`. Public: the
 * secret in the address is the credential (32 random bytes, never shown by the API). The body
 * is stored and answered at once; the inbound worker (engine/kommo-inbound) applies it.
 */
export default async function kommoHookRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  const { ctx } = app;
  const misses = createRateLimiter({ limit: MISSES_ALLOWED, windowMs: MISS_WINDOW_MS });
  const perAccount = createRateLimiter({ limit: POSTS_PER_ACCOUNT_MINUTE, windowMs: 60_000 });

  // Kommo posts forms with bracket keys; in this plugin only those are read, by the strict parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: HOOK_FORM_LIMITS.bodyBytes }, (_req, body, done) => {
    try {
      done(null, parseHookForm(String(body)));
    } catch (err) {
      done(err instanceof HookFormError ? new AppError(400, 'El cuerpo del webhook no es un formulario válido') : (err as Error), undefined);
    }
  });

  // The address is checked before a byte of the body is read: a wrong one costs nothing.
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const secret = (request.params as { secret?: string } | undefined)?.secret ?? '';
    const account = HOOK_SECRET_PATTERN.test(secret) ? await findHookAccount(ctx.db, secret) : null;
    if (!account) {
      // Kommo posts every tenant's webhooks from a few addresses, and a removed account's
      // subscription may still post here: misses never hold back a known address, they only
      // ration guesses from one client.
      if (misses.isLimited(request.ip)) throw new AppError(429, 'Demasiadas peticiones. Intenta de nuevo en unos minutos.');
      misses.hit(request.ip);
      throw notFound(NOT_FOUND);
    }
    if (!perAccount.take(String(account.id))) throw new AppError(429, 'Demasiados webhooks para esta cuenta. Intenta de nuevo en un minuto.');
    request.kommoHookAccount = account;
  });

  app.post(
    '/:secret',
    {
      config: { public: true },
      bodyLimit: HOOK_FORM_LIMITS.bodyBytes,
      schema: { tags: ['kommo'], params: kommoHookParamsSchema, response: { 200: z.object({ received: z.literal(true) }) } },
    },
    async (request) => {
      const account = request.kommoHookAccount!;
      const parsed = kommoHookBodySchema.safeParse(request.body ?? {});
      // Another Kommo account posting to this address (a copied URL) is answered and ignored.
      const subdomain = parsed.success ? parsed.data.account?.subdomain : undefined;
      if (!parsed.success || (subdomain !== undefined && subdomain !== account.subdomain)) return { received: true as const };
      if (await storeHookBody(ctx.db, account, parsed.data)) {
        await queueInboxDrain(ctx.db, account.id);
        ctx.signals.kommoInboxStored();
      }
      return { received: true as const };
    },
  );
}
