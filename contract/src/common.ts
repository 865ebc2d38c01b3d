import { z } from 'zod';

/** Every failed API call answers with this body; `error` is shown to the operator as is. */
export const errorBodySchema = z.object({ error: z.string() });
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Path ids are positive integers; anything else is a 400, never a database error. */
export const idSchema = z.coerce.number().int().positive().max(2_147_483_647);
export const idParamsSchema = z.object({ id: idSchema });

export const okSchema = z.object({ success: z.literal(true), message: z.string().optional() });
