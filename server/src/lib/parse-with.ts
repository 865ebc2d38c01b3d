import type { z } from 'zod';
import { badRequest } from './errors';

/** Services are also called directly (engine, tests): validate with the route's schema. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.');
  throw badRequest(field ? `${field}: ${issue?.message}` : (issue?.message ?? 'Datos inválidos'));
}
