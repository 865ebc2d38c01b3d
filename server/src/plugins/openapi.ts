import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';

export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      info: { title: 'Masivo API', description: 'API de la consola de campañas masivas de WhatsApp', version: '1.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      security: [{ bearer: [] }],
    },
    // The public API (/api/v1) has its own document, at /api/v1/docs.
    transform: (input) => {
      const out = jsonSchemaTransform(input);
      return input.url.startsWith('/api/v1') ? { ...out, schema: { ...out.schema, hide: true } } : out;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
}
