import { simpleParser, type ParsedMail } from 'mailparser';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, shot, signUp } from '../src/browser';
import { connectAccounts, SEED, seededStackOptions, waitFor } from '../src/seed';
import { apiAs, startStack, type ConsoleApi, type Stack } from '../src/stack';

/**
 * A team in the browser: the owner invites an Editor limited to one number from «Organización»;
 * the mail (caught by an SMTP server in this process) carries the link the Editor signs up from.
 * The Editor's campaign, above the owner's approval threshold, waits «Pendiente de aprobación»
 * without sending and offers the Editor no «Aprobar»; a Gestor de campañas approves it and it is
 * sent. The owner's «Registro de actividad» names who did each step, and a Lector sees customers'
 * phones masked on «Contactos», without «Exportar CSV». Accounts and settings go through the API.
 */

const PUBLIC_URL = 'http://127.0.0.1:3000';
const MAIL_FROM = 'Mensajes Masivos <no-reply@example.com>';
const PASSWORD = 'secreto123';
/** A second number on the same WABA, outside the Editor's scope. */
const OTHER_NUMBER = { phoneNumberId: '3002', displayPhoneNumber: '5491155550001' };
/** A contact with a known phone, to read it masked. */
const WITNESS = { id: 1, name: 'Zulema Testigo', phone: '+54 9 11 4321-5678', masked: '+54 9 11 •••• 5678' };
const THRESHOLD = 50;
const CAMPAIGN = 'Campaña del equipo E2E';

const stamp = `${Date.now()}`;
const people = {
  owner: { name: 'Laura Gómez', email: `duena${stamp}@example.com` },
  editor: { first: 'Marta', last: 'Ruiz', email: `editora${stamp}@example.com` },
  manager: { first: 'Pablo', last: 'Sosa', email: `gestor${stamp}@example.com` },
  viewer: { first: 'Inés', last: 'Vera', email: `lectora${stamp}@example.com` },
};
const fullName = (p: { first: string; last: string }) => `${p.first} ${p.last}`;

let stack: Stack;
let browser: Browser;
let closeBrowser: () => Promise<void>;
let owner: Page;
let ownerApi: ConsoleApi;
let ids: { kommoAccountId: number; whatsappAccountId: number; templateId: number; otherNumberId: number };
const contexts: BrowserContext[] = [];

// The mailbox: every mail the console sends, parsed.
let smtp: SMTPServer;
const inbox: ParsedMail[] = [];
const addressOf = (m: ParsedMail) => (m.to && !Array.isArray(m.to) ? m.to.text : '').toLowerCase();
async function mailTo(to: string): Promise<ParsedMail> {
  let mail: ParsedMail | undefined;
  await waitFor(async () => !!(mail = inbox.find((m) => addressOf(m).includes(to.toLowerCase()))), 10_000);
  return mail!;
}
const linkOf = (mail: ParsedMail) => /https?:\/\/\S+\/invitations\/[A-Za-z0-9_-]+/.exec(mail.text ?? '')?.[0] ?? '';
const tokenOf = (mail: ParsedMail) => linkOf(mail).split('/').pop()!;

const sent = () => stack.whatsapp.messages().length;

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, locale: 'es-ES' });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return page;
}

/** Invited through the API, signed up through the API with the mail's token, signed in on the Login screen. */
async function memberSignedIn(p: { first: string; last: string; email: string }, role: 'campaign_manager' | 'viewer'): Promise<Page> {
  const created = await ownerApi.post('/organization/invitations', { email: p.email, role, scope: { whatsapp_account_ids: [], kommo_account_ids: [] } });
  expect(created.link).toBeNull();
  const res = await fetch(`${stack.baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ first_name: p.first, last_name: p.last, email: p.email, password: PASSWORD, invitation_token: tokenOf(await mailTo(p.email)) }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  const page = await newPage();
  await page.goto(`${stack.baseUrl}/login`);
  await page.getByLabel('Email').fill(p.email);
  await page.getByLabel('Contraseña').fill(PASSWORD);
  await page.getByRole('button', { name: 'Iniciar Sesión' }).click();
  await page.waitForURL(`${stack.baseUrl}/dashboard`);
  return page;
}

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          inbox.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as { port: number };

  const options = seededStackOptions();
  options.whatsapp.numbers = [
    ...options.whatsapp.numbers!,
    { phoneNumberId: OTHER_NUMBER.phoneNumberId, wabaId: SEED.wabaId, token: SEED.waToken, displayPhoneNumber: OTHER_NUMBER.displayPhoneNumber, throughput: 80 },
  ];
  stack = await startStack({ ...options, env: { SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM, PUBLIC_URL } });
  stack.kommo.updateContact(SEED.subdomain, WITNESS.id, { name: WITNESS.name, phone: WITNESS.phone });

  // The owner signs up on the Register screen; the accounts are connected through the API.
  ({ browser, page: owner, close: closeBrowser } = await openBrowser());
  const { token } = await signUp(owner, stack.baseUrl, people.owner.email, PASSWORD);
  ownerApi = apiAs(stack.baseUrl, token);
  const connected = await connectAccounts(stack, ownerApi, {
    subdomain: SEED.subdomain,
    kommoToken: SEED.kommoToken,
    phoneNumberId: SEED.phoneNumberId,
    wabaId: SEED.wabaId,
    waToken: SEED.waToken,
    template: SEED.template,
    name: 'Ventas',
    phone: '+5491155550000',
    ratePerSecond: 80,
  });
  const other = await ownerApi.post('/whatsapp-accounts', {
    name: 'Soporte',
    phone_number: `+${OTHER_NUMBER.displayPhoneNumber}`,
    phone_number_id: OTHER_NUMBER.phoneNumberId,
    access_token: SEED.waToken,
    business_account_id: SEED.wabaId,
    kommo_account_id: connected.kommoAccountId,
    rate_per_second: 80,
  });
  ids = { ...connected, otherNumberId: other.id as number };
  // Two-person approval above THRESHOLD recipients.
  await ownerApi.put('/organization/settings', { approval: { mode: 'recipients', min_recipients: THRESHOLD }, activity_retention_days: 365 });
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await closeBrowser?.();
  await stack?.stop();
  await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
});

describe('a team: invitation by mail, two-person approval, activity log and masked phones', () => {
  let editor: Page;
  let manager: Page;
  let campaignId: number;
  let attempted: number;

  it('the owner invites an Editor limited to one number from «Organización»; the mail carries the link', async () => {
    await owner.getByRole('link', { name: 'Organización', exact: true }).first().click();
    await owner.waitForURL(`${stack.baseUrl}/organization`);
    await owner.getByRole('button', { name: 'Invitar miembro' }).click();
    const dialog = owner.getByRole('dialog');
    await dialog.getByLabel('Email').fill(people.editor.email);
    await dialog.getByLabel('Rol').selectOption({ label: 'Editor' });
    await dialog.getByRole('checkbox', { name: /Ventas/ }).check();
    expect(await dialog.getByRole('checkbox', { name: /Soporte/ }).isChecked()).toBe(false);
    await shot(owner, 'team-invite-dialog');
    await dialog.getByRole('button', { name: 'Invitar', exact: true }).click();
    await owner.getByText(`Invitación enviada a ${people.editor.email}`).first().waitFor();

    const mail = await mailTo(people.editor.email);
    expect(mail.subject).toMatch(/^Te invitaron a .+ en Mensajes Masivos$/);
    expect(mail.from?.text).toContain('no-reply@example.com');
    expect(linkOf(mail).startsWith(`${PUBLIC_URL}/invitations/`)).toBe(true);
    // The invitation is listed; its mail status is the one of the moment it was listed (the list
    // does not poll while a mail is «Enviando…»), so a reload shows it sent.
    const row = owner.getByRole('row', { name: new RegExp(people.editor.email) });
    await row.waitFor();
    await waitFor(async () => (await ownerApi.get<any[]>('/organization/invitations')).some((i) => i.email === people.editor.email && i.mail_status === 'sent'), 10_000);
    await owner.reload();
    await row.getByText('Correo enviado').waitFor();
    await row.getByText('Editor', { exact: true }).waitFor();
    const [inv] = (await ownerApi.get<any[]>('/organization/invitations')).filter((i) => i.email === people.editor.email);
    expect(inv).toMatchObject({ role: 'editor', status: 'pending', scope: { whatsapp_account_ids: [ids.whatsappAccountId], kommo_account_ids: [] } });
  });

  it('the Editor opens the mailed link in another browser, signs up with the e-mail locked, and sees only the number of the scope', async () => {
    editor = await newPage();
    // The link points at PUBLIC_URL; the console under test listens on another port.
    await editor.goto(`${stack.baseUrl}/invitations/${tokenOf(await mailTo(people.editor.email))}`);
    await editor.getByRole('heading', { name: 'Únete a la organización' }).waitFor();
    await editor.getByText('Editor', { exact: true }).first().waitFor();
    const email = editor.getByLabel('Email');
    expect(await email.inputValue()).toBe(people.editor.email);
    expect(await email.getAttribute('readonly')).not.toBeNull();
    await editor.getByLabel('Nombre').fill(people.editor.first);
    await editor.getByLabel('Apellido').fill(people.editor.last);
    await editor.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
    await editor.getByLabel('Confirmar Contraseña').fill(PASSWORD);
    await shot(editor, 'team-accept-invitation');
    await editor.getByRole('button', { name: 'Crear Cuenta' }).click();
    await editor.waitForURL(`${stack.baseUrl}/dashboard`);
    const editorApi = apiAs(stack.baseUrl, (await editor.evaluate(() => localStorage.getItem('token')))!);
    expect(await editorApi.get('/me')).toMatchObject({ role: 'editor', organization: { id: expect.any(Number) } });

    // The campaign form offers the Editor's number only.
    await editor.goto(`${stack.baseUrl}/campaigns/new`);
    await editor.getByRole('heading', { name: 'Nueva Campaña' }).waitFor();
    const numbers = editor.getByLabel('Cuenta WhatsApp *');
    await numbers.locator(`option[value="${ids.whatsappAccountId}"]`).waitFor({ state: 'attached' });
    expect(await numbers.locator(`option[value="${ids.otherNumberId}"]`).count()).toBe(0);
  });

  it("the Editor's campaign above the threshold waits «Pendiente de aprobación», sends nothing and offers the Editor no «Aprobar»", async () => {
    await editor.getByLabel('Nombre de la Campaña *').fill(CAMPAIGN);
    await editor.getByLabel('Cuenta Kommo *').selectOption({ label: SEED.subdomain });
    await editor.getByLabel('Cuenta WhatsApp *').selectOption(String(ids.whatsappAccountId));
    await editor.getByLabel('Template *').selectOption(String(ids.templateId));
    await editor.getByRole('button', { name: 'Crear Campaña' }).click();
    await editor.waitForURL(/\/campaigns\/\d+$/);
    campaignId = Number(editor.url().split('/').pop());
    await editor.getByRole('heading', { name: CAMPAIGN }).waitFor();

    await editor.getByRole('button', { name: 'Solicitar aprobación' }).click();
    const confirm = editor.getByRole('dialog');
    await confirm.getByText('Otro miembro debe aprobar el envío antes de que salga.', { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Solicitar aprobación' }).click();
    await editor.getByText('Solicitud de aprobación enviada').first().waitFor();
    const card = editor.getByTestId('campaign-approval');
    await card.getByRole('heading', { name: 'Pendiente de aprobación' }).waitFor();
    await card.getByText(`Inicio solicitado por ${fullName(people.editor)}`, { exact: false }).waitFor();
    await card.getByText('Otro miembro con permiso de aprobación debe aprobarla o rechazarla', { exact: false }).waitFor();
    expect(await editor.getByRole('button', { name: 'Aprobar' }).count()).toBe(0);
    expect(await editor.getByRole('button', { name: 'Rechazar' }).count()).toBe(0);

    const pending = await ownerApi.get(`/campaigns/${campaignId}`);
    expect(pending.status).toBe('pending_approval');
    attempted = pending.approval.attempted as number;
    expect(attempted).toBeGreaterThan(THRESHOLD);
    // Give the engine a few ticks: still nothing goes out.
    await new Promise((r) => setTimeout(r, 2000));
    expect(sent()).toBe(0);
    expect((await ownerApi.get(`/campaigns/${campaignId}`)).status).toBe('pending_approval');
    await editor.mouse.move(10, 400);
    await shot(editor, 'team-pending-approval-editor');
  });

  it('a Gestor de campañas approves it on its screen and it is sent', async () => {
    manager = await memberSignedIn(people.manager, 'campaign_manager');
    await manager.goto(`${stack.baseUrl}/campaigns/${campaignId}`);
    const card = manager.getByTestId('campaign-approval');
    await card.getByRole('heading', { name: 'Pendiente de aprobación' }).waitFor();
    await card.getByText(String(attempted), { exact: true }).waitFor();
    expect(sent()).toBe(0);
    await shot(manager, 'team-approval-manager');
    await card.getByRole('button', { name: 'Aprobar' }).click();
    const dialog = manager.getByRole('dialog');
    await dialog.getByLabel('Nota (opcional)').fill('Revisado: audiencia y plantilla correctas');
    await dialog.getByRole('button', { name: 'Aprobar' }).click();
    await manager.getByText('Campaña aprobada').first().waitFor();

    await waitFor(async () => (await ownerApi.get(`/campaigns/${campaignId}`)).status === 'completed', 60_000);
    await manager.getByText('Completada', { exact: true }).first().waitFor({ timeout: 30_000 });
    const done = await ownerApi.get(`/campaigns/${campaignId}`);
    expect(done.messages_sent).toBe(attempted);
    expect(sent()).toBe(attempted);
    expect(new Set(stack.whatsapp.messages().map((m) => m.phoneNumberId))).toEqual(new Set([SEED.phoneNumberId]));
    expect(stack.whatsapp.duplicates()).toHaveLength(0);
    await manager.mouse.move(10, 400);
    await shot(manager, 'team-completed');
  });

  it("the owner's «Registro de actividad» names who did each step", async () => {
    await owner.getByRole('link', { name: 'Registro de actividad', exact: true }).first().click();
    await owner.waitForURL(`${stack.baseUrl}/activity`);
    await owner.getByRole('heading', { name: 'Registro de actividad' }).waitFor();
    const rows = owner.getByTestId('activity-entry');
    await rows.first().waitFor();
    const editorName = fullName(people.editor);
    const managerName = fullName(people.manager);
    const expected: Array<{ action: string; who: string; also?: string }> = [
      { action: 'Invitó a un miembro', who: people.owner.name, also: people.editor.email },
      { action: 'Invitó a un miembro', who: people.owner.name, also: people.manager.email },
      { action: 'Aceptó la invitación', who: editorName },
      { action: 'Aceptó la invitación', who: managerName },
      { action: 'Cambió la configuración de la organización', who: people.owner.name },
      { action: 'Creó la campaña', who: editorName, also: CAMPAIGN },
      { action: 'Pidió aprobación para la campaña', who: editorName, also: CAMPAIGN },
      { action: 'Aprobó la campaña', who: managerName, also: CAMPAIGN },
      { action: 'Campaña completada', who: 'sistema', also: CAMPAIGN },
    ];
    const missing = async () => {
      const texts = await rows.allTextContents();
      return expected.filter((e) => !texts.some((t) => t.includes(e.action) && t.includes(e.who) && (!e.also || t.includes(e.also))));
    };
    // The completion is written by the engine: reload until it is there.
    await waitFor(async () => {
      if ((await missing()).length === 0) return true;
      await owner.reload();
      await rows.first().waitFor();
      return false;
    }, 20_000).catch(() => {});
    expect(await missing()).toEqual([]);
    // Roles of the moment beside the names.
    const approval = rows.filter({ hasText: 'Aprobó la campaña' }).first();
    expect(await approval.textContent()).toContain('Gestor de campañas');
    const request = rows.filter({ hasText: 'Pidió aprobación para la campaña' }).first();
    expect(await request.textContent()).toContain('Editor');
    await owner.mouse.move(10, 400);
    await shot(owner, 'team-activity');
  });

  it('a Lector sees phones masked on «Contactos» and no «Exportar CSV»; the owner sees them whole', async () => {
    const viewer = await memberSignedIn(people.viewer, 'viewer');
    const find = async (page: Page) => {
      await page.goto(`${stack.baseUrl}/contacts?account=${ids.kommoAccountId}`);
      await page.getByPlaceholder('Buscar por nombre, teléfono o email...').fill(WITNESS.name);
      return page.getByRole('row', { name: new RegExp(WITNESS.name) });
    };
    const row = await find(viewer);
    await row.getByText(WITNESS.masked).waitFor();
    expect(await viewer.getByRole('button', { name: 'Exportar CSV' }).count()).toBe(0);
    const body = (await viewer.locator('main').textContent()) ?? '';
    expect(body).not.toContain('4321');
    await shot(viewer, 'team-viewer-contacts');

    const ownerRow = await find(owner);
    await ownerRow.waitFor();
    expect(await ownerRow.textContent()).toContain('4321');
    await owner.getByRole('button', { name: 'Exportar CSV' }).waitFor();
  });
});
