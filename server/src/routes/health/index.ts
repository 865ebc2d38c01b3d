import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/sql';

export default async function healthRoutes(app: FastifyInstance) {
  app.get('/', { config: { public: true }, schema: { hide: true } }, async () => {
    await rowsOf(app.ctx.db, sql`select 1`);
    return { status: 'ok', database: app.ctx.database.kind };
  });
}
