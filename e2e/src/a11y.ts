import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const require = createRequire(import.meta.url);
const AXE_SOURCE: string = require('axe-core').source;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Screenshots for a person to look at; outside the repository so they are never committed. */
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots';

export const DESKTOP = { viewport: { width: 1280, height: 800 } } as const;
/** A phone as mobile Chrome lays it out: a wider page would widen the layout viewport and pan. */
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 } as const;

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/** A context already signed in as `session` (the console keeps its session in local storage). */
export async function signedInContext(browser: Browser, options: typeof DESKTOP | typeof PHONE, session?: { token: string; user: unknown }): Promise<BrowserContext> {
  const context = await browser.newContext({ ...options, locale: 'es-ES', reducedMotion: 'reduce' });
  if (session)
    await context.addInitScript(([token, user]) => {
      localStorage.setItem('token', token as string);
      localStorage.setItem('user', user as string);
    }, [session.token, JSON.stringify(session.user)] as const);
  context.setDefaultTimeout(15_000);
  return context;
}

export interface AxeNode {
  target: unknown[];
  failureSummary?: string;
}
export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: AxeNode[];
}

/**
 * axe-core with WCAG 2.1 A/AA and best practice. It is evaluated over the DevTools protocol, as
 * the console's CSP (script-src 'self') rightly refuses an injected script tag.
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const w = window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } };
    const result = await w.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  });
}

/** The violations a release must not have, as readable lines (empty when there are none). */
export function blocking(violations: AxeViolation[]): string[] {
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id}: ${JSON.stringify(n.target)} — ${v.help}`));
}

/** How far the page is wider than the window (0 when nothing pans sideways). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth);
}

/** Visible controls smaller than `min` px in either direction (inline text links are exempt, as in WCAG 2.5.5). */
export function smallTargets(page: Page, min = 44): Promise<string[]> {
  return page.evaluate((min) => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('button, select, input:not([type=hidden]), textarea, [role=button], a[href]'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      if (el.closest('[aria-hidden="true"], [inert], .sr-only')) continue;
      if (el.tagName === 'A' && getComputedStyle(el).display === 'inline') continue;
      // A checkbox or radio is hit through its label row.
      const box = el.matches('input[type=checkbox], input[type=radio]') ? (el.closest('label') ?? el).getBoundingClientRect() : r;
      if (box.height < min - 0.5 || (el.matches('button, [role=button]') && box.width < min - 0.5))
        out.push(`${el.tagName.toLowerCase()} «${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 30)}» ${Math.round(box.width)}×${Math.round(box.height)}`);
    }
    return out;
  }, min);
}

export async function screenshot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  // The first screen as the person sees it (a full page of a long list is too tall to read).
  await page.screenshot({ path: join(SHOTS, `${name}-first-screen.png`) });
}

/** Waits until nothing is loading: no spinner, and the page has its heading. */
export async function settled(page: Page) {
  await page.waitForFunction(() => !document.querySelector('[role="status"][aria-label="Cargando..."]') && !!document.querySelector('h1'));
  // Fonts, images and transitions (reduced motion keeps the last short).
  await page.waitForTimeout(150);
}

/** What has focus, described for assertions: tag, accessible-ish name, and whether it is inside an open dialog. */
export function focused(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: 'body', name: '', inDialog: false, dialog: '' };
    const dialog = el.closest('[role="dialog"]');
    const labelled = (el as HTMLInputElement).labels?.[0]?.textContent ?? '';
    return {
      tag: el.tagName.toLowerCase(),
      name: (el.getAttribute('aria-label') ?? (labelled || el.textContent) ?? '').trim(),
      inDialog: !!dialog,
      dialog: dialog?.querySelector('h2')?.textContent ?? '',
    };
  });
}

/** Presses Tab until `done` holds (at most `max` presses), checking after each press that focus stayed in the dialog. */
export async function tabUntil(page: Page, done: (f: Awaited<ReturnType<typeof focused>>) => boolean, { max = 40, inDialog = false, shift = false } = {}) {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(shift ? 'Shift+Tab' : 'Tab');
    const f = await focused(page);
    if (inDialog && !f.inDialog) throw new Error(`focus left the dialog: ${JSON.stringify(f)}`);
    if (done(f)) return i + 1;
  }
  throw new Error(`not reached in ${max} Tab presses; focus on ${JSON.stringify(await focused(page))}`);
}
