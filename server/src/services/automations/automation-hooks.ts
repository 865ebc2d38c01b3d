import type { AppContext } from '../../context';
import { refreshInBackground } from '../kommo-inbound/subscription';

/**
 * Called when an automatic campaign is switched on, paused or deleted, so the inbound side can
 * subscribe to (or drop) the Kommo account's lead events (`automationsNeedLeadEvents` tells
 * whether any campaign still needs them). Tests may put another hook in its place
 * (`setAutomationSwitchedHook`); a failing hook is logged, never the operator's error.
 */
export type AutomationSwitchedHook = (ctx: AppContext, orgId: number, accountId: number) => Promise<void> | void;

const refresh: AutomationSwitchedHook = refreshInBackground;
let hook: AutomationSwitchedHook = refresh;

export function setAutomationSwitchedHook(next: AutomationSwitchedHook | null): void {
  hook = next ?? refresh;
}

export async function onAutomationSwitched(ctx: AppContext, orgId: number, accountId: number | null): Promise<void> {
  if (accountId === null) return;
  try {
    await hook(ctx, orgId, accountId);
  } catch (err) {
    ctx.log.warn({ err, orgId, accountId }, 'automation switched hook failed');
  }
}
