import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP, horizontalOverflow, launch, PHONE, screenshot, settled, signedInContext } from '../src/a11y';
import { SEED, seed, seededStackOptions } from '../src/seed';
import { startStack, type Stack } from '../src/stack';

/**
 * A number Meta restricts (its WABA's account_update ACCOUNT_RESTRICTION, delivered by the
 * simulator as Meta documents it): its card says so, until when, and what it means, at desktop
 * and phone width.
 */

let stack: Stack;
let browser: Browser;
let ids: Awaited<ReturnType<typeof seed>>;

beforeAll(async () => {
  stack = await startStack(seededStackOptions());
  [ids, browser] = await Promise.all([seed(stack), launch()]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe('a number Meta restricts', () => {
  it('shows the restriction on its card, at desktop and phone width', async () => {
    await stack.whatsapp.accountUpdate({ wabaId: SEED.wabaId, event: 'ACCOUNT_RESTRICTION', expiresInMs: 24 * 3600_000 });
    // The webhook is applied by the inbox: the account view carries the restriction.
    await expect
      .poll(async () => ((await ids.api.get(`/whatsapp-accounts`)) as Array<{ id: number; restriction: unknown }>).find((a) => a.id === ids.whatsappAccountId)?.restriction ?? null, { timeout: 15_000 })
      .not.toBeNull();
    for (const [options, name] of [[DESKTOP, 'number-restricted-desktop'], [PHONE, 'number-restricted-phone']] as const) {
      const page = await (await signedInContext(browser, options, ids.session)).newPage();
      await page.goto(`${stack.baseUrl}/whatsapp-accounts`);
      await settled(page);
      const notice = page.getByText(/^Restringido por Meta/);
      await notice.waitFor();
      expect(await notice.textContent()).toBe('Restringido por Meta: Meta restringió los mensajes iniciados por la empresa en esta cuenta de WhatsApp Business');
      await expect.poll(() => page.getByText(/^Hasta el \d{2}\/\d{2}\/\d{4}/).count()).toBe(1);
      expect(await horizontalOverflow(page), `${name} pans sideways`).toBeLessThanOrEqual(0);
      await screenshot(page, name);
      await page.context().close();
    }
  });
});
