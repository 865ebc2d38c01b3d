/**
 * `npm run demo`: the console on the embedded database plus both simulators in one process,
 * with a demo user who already has a Kommo account (a few thousand contacts) and a WhatsApp
 * number with approved templates and mapped variables. Nothing external is contacted.
 */
import { resolve } from 'node:path';
import { ROLE_LABEL } from '@masivo/contract/organizations';
import { DEMO_HEADER_PNG, DEMO_TEMPLATES } from '@masivo/simulators/demo-templates';
import { startKommoSim } from '@masivo/simulators/kommo';
import { startWhatsAppSim } from '@masivo/simulators/whatsapp';
import { loadConfig } from './config';
import { startServer } from './server';

const DEMO_USER = { email: 'demo@masivo.local', password: 'demo1234', first_name: 'Demo', last_name: 'Operador' };
const KOMMO = { subdomain: 'demo', token: 'kommo-demo-token', contacts: 3000 };
const WHATSAPP = { phoneNumberId: '100000000000001', wabaId: '200000000000001', token: 'wa-demo-token', display: '5491100000000' };
const APP_SECRET = 'demo-whatsapp-app-secret';
const VERIFY_TOKEN = 'demo-verify-token';

/**
 * The simulators' ports: `SIM_KOMMO_PORT` / `SIM_WHATSAPP_PORT` when set (0 = any free port), else
 * 4010 / 4020. A port that was asked for and is busy stops the demo with a clear message; a busy
 * default falls back to a free port, so the printed URLs are stable in the usual case.
 */
function simPort(name: 'SIM_KOMMO_PORT' | 'SIM_WHATSAPP_PORT', fallback: number): { port: number; chosen: boolean } {
  const raw = process.env[name]?.trim();
  if (!raw) return { port: fallback, chosen: false };
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) {
    console.error(`${name} debe ser un número de puerto entre 0 y 65535 (recibido: "${raw}")`);
    process.exit(1);
  }
  return { port, chosen: true };
}

async function onPort<T>(name: string, start: (port: number) => Promise<T>, { port, chosen }: { port: number; chosen: boolean }): Promise<T> {
  try {
    return await start(port);
  } catch (err) {
    if (chosen) {
      console.error(`No se pudo abrir el puerto ${port} de ${name}: ${(err as Error).message}`);
      process.exit(1);
    }
    return start(0);
  }
}

const kommo = await onPort(
  'SIM_KOMMO_PORT',
  (port) => startKommoSim({ port, accounts: [{ subdomain: KOMMO.subdomain, token: KOMMO.token, contacts: KOMMO.contacts }] }),
  simPort('SIM_KOMMO_PORT', 4010),
);
const whatsapp = await onPort(
  'SIM_WHATSAPP_PORT',
  (port) =>
    startWhatsAppSim({
      port,
      appSecret: APP_SECRET,
      webhookUrl: null,
      statusDelayMs: 300,
      numbers: [{ phoneNumberId: WHATSAPP.phoneNumberId, wabaId: WHATSAPP.wabaId, token: WHATSAPP.token, displayPhoneNumber: WHATSAPP.display, verifiedName: 'Masivo Demo', qualityRating: 'GREEN', throughput: 80, messagingLimit: 'TIER_10K' }],
      templates: DEMO_TEMPLATES.map((t) => ({ ...t, wabaId: WHATSAPP.wabaId })),
      // Meta's 2025–26 rules, so the demo shows them (docs/reglas-de-meta.md): the portfolio's
      // daily limit, a few people at Meta's per-user marketing limit (131049), username users
      // known only by their BSUID, messages held for quality, the limit webhooks in both shapes,
      // and a pause ladder short enough to watch (3 and 6 minutes instead of hours).
      rules: {
        enforcePortfolioLimit: true,
        legacyLimitShape: 'also',
        marketingLimitShare: 0.03,
        usernameShare: 0.02,
        heldForQualityShare: 0.05,
        pauseDurationsMs: [3 * 60_000, 6 * 60_000],
      },
      // People answer by themselves: of the delivered messages, 15 % tap a quick-reply
      // button (templates that have them) and 10 % write back, a few seconds later.
      autoReplies: { tapShare: 0.15, replyShare: 0.1, delayMs: 3_000 },
    }),
  simPort('SIM_WHATSAPP_PORT', 4020),
);

// The accounts screen shows the webhook URL built from PUBLIC_URL; unless told otherwise, the
// demo derives it from the port the console really listens on, not the default 3000.
const PORT = process.env.PORT ?? '3000';
const server = await startServer(
  loadConfig({
    ...process.env,
    PORT,
    PUBLIC_URL: process.env.PUBLIC_URL ?? `http://localhost:${PORT}`,
    DATA_DIR: process.env.DATA_DIR ?? resolve('data/demo'),
    KOMMO_BASE_URL: kommo.baseUrlTemplate,
    WHATSAPP_GRAPH_URL: whatsapp.graphUrl,
    WHATSAPP_APP_SECRET: APP_SECRET,
    WHATSAPP_APP_ID: whatsapp.appId,
    // Everything runs on this machine: media links may point at it.
    MEDIA_ALLOW_PRIVATE_HOSTS: '1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  }),
);
const baseUrl = server.url!;
// With PORT=0 (any free port) only the listening server knows the port: show that one.
if (!process.env.PUBLIC_URL) server.ctx.config.PUBLIC_URL = baseUrl;
whatsapp.configure({ webhookUrl: `${baseUrl}/api/webhooks/whatsapp` });

async function call<T = any>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(`${baseUrl}/api${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * Write-back to Kommo on for the demo account: notes, the opt-out and reply tags, and a
 * reply moves the contact's open lead to "Respondió campaña". Left as the operator set it once on.
 */
async function enableWriteback(accountId: number, token: string) {
  try {
    const current = await call('GET', `/kommo/accounts/${accountId}/writeback`, undefined, token);
    if (current.enabled) return;
    const pipelines = await call<Array<{ id: number; is_main: boolean; statuses: Array<{ id: number; name: string }> }>>('GET', `/kommo/accounts/${accountId}/pipelines`, undefined, token);
    const main = pipelines.find((p) => p.is_main);
    const stage = main?.statuses.find((s) => s.name === 'Respondió campaña');
    await call('PUT', `/kommo/accounts/${accountId}/writeback`, {
      enabled: true,
      notes: true,
      opt_out_tag: 'Baja WhatsApp',
      reply_tag: 'Respondió WhatsApp',
      pipeline_id: stage ? main!.id : null,
      status_id: stage ? stage.id : null,
    }, token);
  } catch (err) {
    console.warn('No se pudo activar la escritura en Kommo de la demo:', (err as Error).message);
  }
}

/** A second member of each role, so anyone can try what each one may do. */
const DEMO_MEMBERS = [
  { role: 'admin', email: 'administrador@masivo.local', first_name: 'Adela', last_name: 'Administradora' },
  { role: 'campaign_manager', email: 'gestor@masivo.local', first_name: 'Gabriel', last_name: 'Gestor' },
  { role: 'editor', email: 'editor@masivo.local', first_name: 'Elena', last_name: 'Editora' },
  { role: 'viewer', email: 'lector@masivo.local', first_name: 'Lucas', last_name: 'Lector' },
] as const;

/** Invites each demo member and signs them up from the invitation's link (no mail server needed). */
async function seedMembers(ownerToken: string) {
  for (const m of DEMO_MEMBERS) {
    const exists = await call('POST', '/auth/login', { email: m.email, password: DEMO_USER.password }).then(() => true, () => false);
    if (exists) continue;
    const { link } = await call<{ link: string | null }>('POST', '/organization/invitations', { email: m.email, role: m.role, scope: {} }, ownerToken);
    if (!link) throw new Error('the demo invitation answered no link');
    const invitationToken = decodeURIComponent(link.split('/invitations/')[1]!);
    await call('POST', '/auth/register', { email: m.email, password: DEMO_USER.password, first_name: m.first_name, last_name: m.last_name, invitation_token: invitationToken });
  }
}

/** Idempotent: a second `npm run demo` on the same data directory finds everything in place. */
async function seed() {
  let token: string;
  try {
    token = (await call('POST', '/auth/login', { email: DEMO_USER.email, password: DEMO_USER.password })).token;
  } catch {
    token = (await call('POST', '/auth/register', DEMO_USER)).token;
  }
  const kommoAccounts = await call<any[]>('GET', '/kommo/accounts', undefined, token);
  let kommoAccount = kommoAccounts.find((a) => a.subdomain === KOMMO.subdomain);
  if (!kommoAccount) {
    kommoAccount = await call('POST', '/kommo/accounts', { subdomain: KOMMO.subdomain, access_token: KOMMO.token, phone_field_id: kommo.fields(KOMMO.subdomain).phoneFieldId }, token);
  }
  await call('POST', '/kommo/sync-contacts', { account_id: kommoAccount.id }, token).catch(() => undefined);
  await enableWriteback(kommoAccount.id, token);

  const waAccounts = await call<any[]>('GET', '/whatsapp-accounts', undefined, token);
  let waAccount = waAccounts.find((a) => a.phone_number_id === WHATSAPP.phoneNumberId);
  if (!waAccount) {
    waAccount = await call(
      'POST',
      '/whatsapp-accounts',
      {
        name: 'WhatsApp Demo',
        phone_number: `+${WHATSAPP.display}`,
        phone_number_id: WHATSAPP.phoneNumberId,
        access_token: WHATSAPP.token,
        business_account_id: WHATSAPP.wabaId,
        kommo_account_id: kommoAccount.id,
        webhook_verify_token: VERIFY_TOKEN,
        notes: 'Número simulado para la demostración',
      },
      token,
    );
    await call('POST', `/whatsapp-accounts/${waAccount.id}/test`, {}, token).catch(() => undefined);
  }
  await call('POST', '/templates/sync', { whatsapp_account_id: waAccount.id }, token);
  const templates = await call<any[]>('GET', `/templates/account/${waAccount.id}`, undefined, token);
  const headerMediaId = await uploadDemoImage();
  const mappings: Record<string, Array<{ templateVariable: string; sourceType?: string; sourceField?: string; defaultValue: string }>> = {
    bienvenida: [{ templateVariable: 'variable_1', sourceField: 'first_name', defaultValue: 'cliente' }],
    promo_mensual: [
      { templateVariable: 'header_variable_1', sourceField: 'custom_fields.Ciudad', defaultValue: 'especial' },
      { templateVariable: 'variable_1', sourceField: 'first_name', defaultValue: 'cliente' },
      { templateVariable: 'variable_2', sourceField: 'custom_fields.Plan', defaultValue: 'actual' },
    ],
    promo_imagen: [
      { templateVariable: 'header_media', sourceType: 'static', defaultValue: headerMediaId },
      { templateVariable: 'variable_1', sourceField: 'first_name', defaultValue: 'cliente' },
      { templateVariable: 'button_0', sourceType: 'static', defaultValue: 'primavera' },
    ],
    confirmacion_pedido: [
      { templateVariable: 'variable_nombre', sourceField: 'first_name', defaultValue: 'cliente' },
      { templateVariable: 'variable_plan', sourceField: 'custom_fields.Plan', defaultValue: 'actual' },
    ],
    cupon_descuento: [
      { templateVariable: 'variable_1', sourceField: 'first_name', defaultValue: 'cliente' },
      { templateVariable: 'button_1', sourceType: 'static', defaultValue: 'MASIVO15' },
    ],
    novedades_temporada: [{ templateVariable: 'variable_1', sourceField: 'first_name', defaultValue: 'cliente' }],
  };
  for (const t of templates) {
    if (mappings[t.name]) await call('POST', `/variables/template/${t.id}/mappings`, { mappings: mappings[t.name] }, token);
  }
  await seedMembers(token);
  await seedAutomatic(token, kommoAccount.id, waAccount.id, templates.find((t) => t.name === 'bienvenida')?.id);
}

/** Contact 1's open lead in the simulated Kommo, and the stage the demo's automatic campaign watches. */
const DEMO_LEAD = 11;
const demoStage = () => kommo.pipelines(KOMMO.subdomain).find((p) => p.isMain)!.statuses.find((st) => st.name === 'Cotización enviada')!;

/** «Recordatorio de cotización»: an automatic campaign switched on, waiting for leads to enter «Cotización enviada». */
async function seedAutomatic(token: string, kommoAccountId: number, whatsappAccountId: number, templateId: number | undefined) {
  if (templateId === undefined) return;
  const name = 'Recordatorio de cotización';
  const existing = (await call<any[]>('GET', '/campaigns', undefined, token)).find((c) => c.name === name);
  if (existing) return;
  const stage = demoStage();
  const main = kommo.pipelines(KOMMO.subdomain).find((p) => p.isMain)!;
  const created = await call<{ id: number }>(
    'POST',
    '/campaigns',
    {
      kind: 'automatic',
      name,
      description: 'Dos minutos después de que un lead entra en «Cotización enviada»',
      kommo_account_id: kommoAccountId,
      whatsapp_account_id: whatsappAccountId,
      template_id: templateId,
      message_type: 'template',
      trigger: { pipeline_id: main.id, status_id: stage.id, on: 'enter', delay_seconds: 120, reentry_days: 7 },
    },
    token,
  );
  await call('POST', `/campaigns/${created.id}/start`, {}, token);
}

/** The image header's media, uploaded to the simulated number (ids do not survive its restart). */
async function uploadDemoImage(): Promise<string> {
  const form = new FormData();
  form.set('messaging_product', 'whatsapp');
  form.set('type', 'image/png');
  form.set('file', new Blob([new Uint8Array(DEMO_HEADER_PNG)], { type: 'image/png' }), 'encabezado.png');
  const res = await fetch(`${whatsapp.graphUrl}/${WHATSAPP.phoneNumberId}/media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${WHATSAPP.token}` },
    body: form,
  });
  const json = (await res.json()) as { id?: string };
  if (!json.id) throw new Error(`demo image upload failed: ${JSON.stringify(json)}`);
  return json.id;
}

await seed();
console.log(
  [
    '',
    `Demo lista en ${baseUrl}`,
    `  Usuario:    ${DEMO_USER.email}`,
    `  Contraseña: ${DEMO_USER.password}`,
    `  Miembros de cada rol (misma contraseña): ${DEMO_MEMBERS.map((m) => `${m.email} (${ROLE_LABEL[m.role]})`).join(', ')}`,
    `  Kommo simulado: subdominio "${KOMMO.subdomain}" con ${KOMMO.contacts} contactos (${kommo.url})`,
    `  WhatsApp simulado: número +${WHATSAPP.display} con plantillas aprobadas (${whatsapp.url})`,
    '  Reglas de Meta en el simulador (docs/reglas-de-meta.md), por ejemplo:',
    `    pausar una plantilla:   curl -X POST ${whatsapp.url}/__control/template-quality -H 'content-type: application/json' -d '{"wabaId":"${WHATSAPP.wabaId}","name":"promo_mensual","score":"RED"}'`,
    `    bajar el límite diario: curl -X POST ${whatsapp.url}/__control/messaging-limit -H 'content-type: application/json' -d '{"phoneNumberId":"${WHATSAPP.phoneNumberId}","limit":250}'`,
    `    responder o tocar un botón: curl -X POST ${whatsapp.url}/__control/reply -H 'content-type: application/json' -d '{"phone":"<teléfono>","button":"Me interesa"}'`,
    `    mejorar la velocidad:   curl -X POST ${whatsapp.url}/__control/throughput-upgrade -H 'content-type: application/json' -d '{"phoneNumberId":"${WHATSAPP.phoneNumberId}"}'`,
    '  Campaña automática «Recordatorio de cotización» (2 minutos después de entrar en «Cotización enviada»):',
    `    mover un lead a la etapa: curl -X POST ${kommo.url}/__control/leads/move -H 'content-type: application/json' -d '{"subdomain":"${KOMMO.subdomain}","id":${DEMO_LEAD},"status_id":${demoStage().id}}'`,
    'Ctrl+C para detener.',
  ].join('\n'),
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await server.stop();
    await Promise.allSettled([kommo.close(), whatsapp.close()]);
    process.exit(0);
  });
}
