import type { GraphClient } from '../../integrations/whatsapp/graph-client';
import { GraphApiError } from '../../integrations/whatsapp/graph-errors';
import { AppError } from '../../lib/errors';

/** Pages of `/{waba}/phone_numbers` read at most; a WABA rarely holds more than a few numbers. */
const MAX_PAGES = 10;
const PAGE_SIZE = 100;

interface PhoneNumbersPage {
  data?: { id?: string }[];
  paging?: { cursors?: { after?: string }; next?: string };
}

/**
 * Proves, with the account's own token, that the number belongs to the WABA the operator typed:
 * Meta lists the WABA's numbers only to a token with access to it. Webhooks are routed by these
 * ids, so an account that skipped this check could receive another tenant's opt-outs and
 * template events. Throws a Spanish AppError when Meta refuses or does not list the number.
 */
export async function verifyNumberOwnership(
  graph: GraphClient,
  token: string,
  phoneNumberId: string,
  wabaId: string,
): Promise<void> {
  let after: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await graph.call<PhoneNumbersPage>({
        method: 'GET',
        path: `/${encodeURIComponent(wabaId)}/phone_numbers`,
        token,
        query: { fields: 'id', limit: PAGE_SIZE, after },
      });
      const data = Array.isArray(res?.data) ? res.data : [];
      if (data.some((n) => String(n?.id) === phoneNumberId)) return;
      after = res?.paging?.next ? res.paging.cursors?.after : undefined;
      if (!after || data.length === 0) break;
    }
  } catch (err) {
    if (err instanceof GraphApiError) {
      // Meta answered with a reason (bad token, no access, unknown id): the input is wrong.
      // No answer or a 5xx: Meta is the problem, and the operator may simply try again.
      const metaRefused = err.code !== null && err.statusCode !== 429 && (err.httpStatus ?? 0) < 500;
      throw new AppError(metaRefused ? 400 : err.statusCode, `No se pudo verificar el número con Meta: ${err.message}`);
    }
    throw err;
  }
  throw new AppError(
    400,
    'Meta no confirma que el ID del número de teléfono pertenezca a esa cuenta de negocio con este token. Revisa ambos IDs y el token.',
  );
}
