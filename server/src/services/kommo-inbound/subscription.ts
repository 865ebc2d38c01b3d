import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../../context';
import { kommoAccounts } from '../../db/schema/kommo';
import { KommoError } from '../../integrations/kommo/errors';
import type { HookSetting, KommoHookApi } from '../../integrations/kommo/hook-api';
import { ensureHookSecret, hookDestination } from './hook-secret';
import { needsLeadEvents, type LeadDemand } from './lead-demand';

type AccountRow = typeof kommoAccounts.$inferSelect;

const CONTACT_SETTINGS: HookSetting[] = ['add_contact', 'update_contact', 'delete_contact'];
const LEAD_SETTINGS: HookSetting[] = ['status_lead', 'add_lead'];
/** A Kommo call of the subscription's never holds anything longer than this. */
const HOOK_CALL_MS = 30_000;

export const HOOKS_REFUSED =
  'Kommo no permite webhooks en esta cuenta (requiere plan Advanced o Enterprise y un token de administrador). Se consulta Kommo cada minuto.';

export interface SubscriptionDeps {
  api?: KommoHookApi;
  leadDemand?: LeadDemand;
}

/** Whether the account is kept current between syncs: «Mantener contactos al día», or an automation needs its leads. */
export async function wantsInbound(ctx: AppContext, account: AccountRow, leadDemand: LeadDemand = needsLeadEvents): Promise<{ wanted: boolean; leads: boolean }> {
  const leads = await leadDemand(ctx.db, { id: account.id, organizationId: account.userId });
  return { wanted: account.keepFresh || leads, leads };
}

/**
 * Subscribes the account's webhook address in Kommo with what it needs now (contacts, plus
 * lead moves and new leads while an automation needs them), or unsubscribes it when nothing
 * needs it. Records the outcome on the account: a refusal (plan, permissions: 4xx) is
 * `unavailable` and the catch-up carries on alone; a transient failure keeps the status and its
 * error, and the catch-up tries again. Never throws for Kommo's sake.
 *
 * The automatic campaigns call this when one is switched on or off.
 */
export async function refreshHookSubscription(ctx: AppContext, orgId: number, accountId: number, deps: SubscriptionDeps = {}): Promise<AccountRow['hookStatus']> {
  const [account] = await ctx.db.select().from(kommoAccounts).where(and(eq(kommoAccounts.id, accountId), eq(kommoAccounts.userId, orgId)));
  if (!account) return null;
  const api = deps.api ?? ctx.kommo.hooks;
  const { wanted, leads } = await wantsInbound(ctx, account, deps.leadDemand);
  const secret = account.hookSecret ?? (await ensureHookSecret(ctx.db, account.id));
  if (!secret) return null;
  const destination = hookDestination(ctx.config.PUBLIC_URL, secret);
  const record = (patch: Partial<typeof kommoAccounts.$inferInsert>) =>
    ctx.db.update(kommoAccounts).set({ hookCheckedAt: new Date(), ...patch }).where(eq(kommoAccounts.id, account.id));
  try {
    const creds = { subdomain: account.subdomain, accessToken: ctx.secrets.open(account.accessTokenEnc) };
    const signal = AbortSignal.timeout(HOOK_CALL_MS);
    if (!wanted) {
      if (account.hookStatus === 'subscribed') await api.unsubscribeHooks(creds, destination, signal);
      await record({ hookStatus: 'off', hookError: null });
      return 'off';
    }
    await api.subscribeHooks(creds, destination, [...CONTACT_SETTINGS, ...(leads ? LEAD_SETTINGS : [])], signal);
    await record({ hookStatus: 'subscribed', hookError: null });
    return 'subscribed';
  } catch (err) {
    if (err instanceof KommoError && isRefusal(err)) {
      await record({ hookStatus: 'unavailable', hookError: err.status === 403 || err.status === 402 ? HOOKS_REFUSED : `${err.message} Se consulta Kommo cada minuto.` });
      return 'unavailable';
    }
    const message = err instanceof Error && (err instanceof KommoError || err.name === 'UnreadableTokenError') ? err.message : 'No se pudo contactar a Kommo para los webhooks.';
    await record({ hookError: message });
    return account.hookStatus;
  }
}

/**
 * After the periodic check: whether Kommo still has the subscription as we asked it (Kommo
 * disables a webhook whose address keeps failing). Resubscribes otherwise.
 */
export async function checkHookSubscription(ctx: AppContext, account: AccountRow, deps: SubscriptionDeps = {}): Promise<void> {
  if (account.hookStatus !== 'subscribed' || !account.hookSecret) {
    await refreshHookSubscription(ctx, account.userId, account.id, deps);
    return;
  }
  const api = deps.api ?? ctx.kommo.hooks;
  const destination = hookDestination(ctx.config.PUBLIC_URL, account.hookSecret);
  try {
    const { leads } = await wantsInbound(ctx, account, deps.leadDemand);
    const hooks = await api.listHooks({ subdomain: account.subdomain, accessToken: ctx.secrets.open(account.accessTokenEnc) }, destination, AbortSignal.timeout(HOOK_CALL_MS));
    const wanted = [...CONTACT_SETTINGS, ...(leads ? LEAD_SETTINGS : [])];
    const live = hooks.find((h) => !h.disabled && wanted.every((s) => h.settings.includes(s)));
    if (live) {
      await ctx.db.update(kommoAccounts).set({ hookCheckedAt: new Date(), hookError: null }).where(eq(kommoAccounts.id, account.id));
      return;
    }
  } catch {
    // Listing failed: subscribing again below says the same, and records why.
  }
  await refreshHookSubscription(ctx, account.userId, account.id, deps);
}

/**
 * Best effort, when an account is removed: its subscription goes too. Never throws and never
 * holds the removal (the caller does not await it); a subscription left behind posts to an
 * address that answers 404, and Kommo disables it.
 */
export async function dropHookSubscription(
  ctx: AppContext,
  removed: Pick<AccountRow, 'subdomain' | 'accessTokenEnc' | 'hookSecret' | 'hookStatus'>,
  api: KommoHookApi = ctx.kommo.hooks,
): Promise<void> {
  if (removed.hookStatus !== 'subscribed' || !removed.hookSecret) return;
  try {
    const creds = { subdomain: removed.subdomain, accessToken: ctx.secrets.open(removed.accessTokenEnc) };
    await api.unsubscribeHooks(creds, hookDestination(ctx.config.PUBLIC_URL, removed.hookSecret), AbortSignal.timeout(HOOK_CALL_MS));
  } catch (err) {
    ctx.log.warn({ engine: 'kommo-inbound', err }, 'unsubscribing the webhooks of a removed Kommo account failed');
  }
}

/** Runs a subscription change in the background: the caller's answer never waits on Kommo. */
export function refreshInBackground(ctx: AppContext, orgId: number, accountId: number): void {
  refreshHookSubscription(ctx, orgId, accountId).catch((err: unknown) =>
    ctx.log.warn({ engine: 'kommo-inbound', err }, 'refreshing the webhook subscription of a Kommo account failed'),
  );
}

/** Kommo said no for good (plan, permissions, address refused), not "try later". */
const isRefusal = (err: KommoError) => err.status !== undefined && err.status >= 400 && err.status < 500 && err.status !== 429;
