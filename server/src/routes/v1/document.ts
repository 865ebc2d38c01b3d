import { PROBLEM_KINDS, PROBLEM_TYPES, problemSchema, problemType } from '@masivo/contract/public-api';

export const V1_DESCRIPTION = [
  'La API pública de Masivo: campañas de plantillas de WhatsApp desde otros sistemas.',
  '',
  'Autenticación: `Authorization: Bearer msv_live_…` con una clave creada en «Claves de API». Cada clave tiene permisos',
  '(`campaigns:read`, `campaigns:write`, `campaigns:send`, `contacts:read`, `templates:read`, `webhooks:manage`), puede',
  'limitarse a algunos números y nunca hace más que el rol de quien la creó.',
  '',
  'Toda petición POST lleva `Idempotency-Key`: la misma clave con el mismo cuerpo devuelve la primera respuesta (24 h);',
  'con otro cuerpo, un 422. Límite por clave (120 peticiones por minuto si no se cambió), con las cabeceras `RateLimit-*`',
  'y `Retry-After` en el 429. Los errores son `application/problem+json` (RFC 9457) con un `type` estable:',
  '',
  ...PROBLEM_KINDS.map((k) => `- \`${problemType(k)}\` (${PROBLEM_TYPES[k].status}): ${PROBLEM_TYPES[k].title}`),
].join('\n');

type Json = Record<string, unknown>;

const header = (description: string, schema: Json = { type: 'integer', format: 'int32', minimum: 0, maximum: 2147483647 }) => ({ description, schema });
const RATE_HEADERS = {
  'RateLimit-Limit': header('Peticiones por minuto de la clave'),
  'RateLimit-Remaining': header('Peticiones que quedan en la ventana'),
  'RateLimit-Reset': header('Segundos hasta que la ventana se renueva'),
  'Access-Control-Allow-Origin': header('Cualquier origen: la clave no es una credencial ambiental', { type: 'string', maxLength: 1, enum: ['*'] }),
};

const ERRORS: Record<string, string> = {
  '400': 'Datos inválidos o falta Idempotency-Key',
  '401': 'Sin clave, o clave inválida, revocada o vencida',
  '403': 'La clave no tiene el permiso, o el rol de su creador no lo permite',
  '404': 'No existe, o está fuera de los números de la clave',
  '409': 'El estado actual no lo permite',
  '422': 'Idempotency-Key reutilizada con otro cuerpo, o datos que no se pueden procesar',
  '429': 'Límite de peticiones alcanzado',
  '500': 'Error interno',
};

/** Integers are published with their width, as OpenAPI formats name it. */
function withIntegerFormats(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(withIntegerFormats);
  if (!node || typeof node !== 'object') return;
  const o = node as Json;
  if (o.type === 'integer' && !o.format) {
    const min = Number(o.minimum ?? o.exclusiveMinimum ?? -Infinity);
    const max = Number(o.maximum ?? o.exclusiveMaximum ?? Infinity);
    o.format = min >= -2147483648 && max <= 2147483647 ? 'int32' : 'int64';
  }
  Object.values(o).forEach(withIntegerFormats);
}

/**
 * The document as published: every answer states the rate-limit headers, every operation its
 * errors as problem details, every POST its `Idempotency-Key`. What is added here is what the
 * plugin (routes/v1/index.ts) does for every route, so it is stated once.
 */
export function publishedDocument(doc: Json): Json {
  // problemSchema is registered (`meta({ id: 'Problem' })`), so the components carry it.
  void problemSchema;
  const problemRef = { $ref: '#/components/schemas/Problem' };
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Json>)) {
    for (const [method, op] of Object.entries(item) as Array<[string, Json]>) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const responses = op.responses as Record<string, Json>;
      for (const [code, text] of Object.entries(ERRORS)) {
        responses[code] ??= { description: text, content: { 'application/problem+json': { schema: problemRef } } };
      }
      for (const [code, response] of Object.entries(responses)) {
        if (!/^[24]/.test(code)) continue;
        response.headers = { ...RATE_HEADERS, ...(code === '429' ? { 'Retry-After': header('Segundos a esperar antes de volver a intentar') } : {}), ...((response.headers as Json) ?? {}) };
      }
      if (method === 'post') {
        const parameters = (op.parameters ??= []) as Json[];
        parameters.push({
          name: 'Idempotency-Key',
          in: 'header',
          required: true,
          description: 'Identifica la petición para reintentarla sin repetir su efecto (24 h)',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
        });
      }
    }
  }
  withIntegerFormats(doc);
  return doc;
}
