import type { GraphClient } from './graph-client';

export interface WabaInfo {
  /** The business portfolio owning the WABA; null when Meta leaves it out. */
  portfolioId: string | null;
  /** The WABA's `marketing_messages_onboarding_status` (ONBOARDED, ELIGIBLE, INELIGIBLE_…, PENDING_…). */
  mmOnboardingStatus: string | null;
  /** The portfolio's terms: `owner_business_info.marketing_messages_onboarding_status.status`. */
  mmTermsStatus: string | null;
}

const text = (v: unknown, max = 60) => (typeof v === 'string' && v ? v.slice(0, max) : typeof v === 'number' ? String(v) : null);

/**
 * The business portfolio that owns a WABA and the WABA's Marketing Messages API state:
 * `GET /{waba_id}?fields=owner_business_info,marketing_messages_onboarding_status` answers
 * `{ "id": "<WABA>", "marketing_messages_onboarding_status": "ONBOARDED", "owner_business_info":
 * { "id": "<portfolio>", "name": "…", "marketing_messages_onboarding_status": { "status":
 * "TERM_OF_SERVICE_SIGNED" } } }`. A refusal of the onboarding field (an older Graph version) is
 * answered with the owner alone; null fields when Meta leaves them out or refuses.
 */
export async function getWabaInfo(client: GraphClient, token: string, wabaId: string): Promise<WabaInfo> {
  const read = (fields: string) =>
    client.call<{ owner_business_info?: Record<string, unknown>; marketing_messages_onboarding_status?: unknown }>({
      method: 'GET',
      path: `/${encodeURIComponent(wabaId)}`,
      token,
      query: { fields },
    });
  let res: Awaited<ReturnType<typeof read>> | null = null;
  try {
    res = await read('owner_business_info,marketing_messages_onboarding_status');
  } catch {
    res = await read('owner_business_info').catch(() => null);
  }
  const owner = res?.owner_business_info;
  const terms = owner?.marketing_messages_onboarding_status;
  return {
    portfolioId: text(owner?.id, 100),
    mmOnboardingStatus: text(res?.marketing_messages_onboarding_status)?.toUpperCase() ?? null,
    mmTermsStatus: text(terms && typeof terms === 'object' ? (terms as Record<string, unknown>).status : terms)?.toUpperCase() ?? null,
  };
}

/** The owning portfolio alone (null: the caller falls back to the WABA). */
export async function getWabaOwnerId(client: GraphClient, token: string, wabaId: string): Promise<string | null> {
  return (await getWabaInfo(client, token, wabaId)).portfolioId;
}
