import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';

export default async function healthRoutes(app: FastifyInstance) {
  app.get('/', { config: { public: true }, schema: { hide: true } }, async () => {
    await app.ctx.database.rows(sql`select 1`);
    return { status: 'ok', database: app.ctx.database.kind };
  });
}
