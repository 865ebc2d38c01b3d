// Starts both simulators in one process for the demo, benchmarks and manual testing.
//   tsx simulators/src/cli.ts --contacts 100000 --webhook-url http://127.0.0.1:3000/api/webhooks/whatsapp
import { parseArgs } from 'node:util';
import { startKommoSim } from './kommo/index';
import { startWhatsAppSim } from './whatsapp/index';
import { DEMO_TEMPLATES } from './demo-templates';

const options = {
  host: { type: 'string', default: '127.0.0.1' },
  'kommo-port': { type: 'string', default: '4010' },
  'whatsapp-port': { type: 'string', default: '4020' },
  contacts: { type: 'string', default: '10000' },
  seed: { type: 'string', default: '1' },
  subdomain: { type: 'string', default: 'demo' },
  'kommo-token': { type: 'string', default: 'kommo-demo-token' },
  rps: { type: 'string', default: '7' },
  'wa-token': { type: 'string', default: 'wa-demo-token' },
  'phone-number-id': { type: 'string', default: '100000000000001' },
  'waba-id': { type: 'string', default: '200000000000001' },
  'display-phone': { type: 'string', default: '5491100000000' },
  'webhook-url': { type: 'string' },
  'app-secret': { type: 'string', default: 'sim-app-secret' },
  throughput: { type: 'string', default: '80' },
  'status-delay-ms': { type: 'string', default: '50' },
  /** JSON object of Meta's 2025–26 rules (MetaRulesConfig), e.g. '{"marketingLimitShare":0.05}'. */
  'meta-rules': { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

function usage(): string {
  const lines = Object.entries(options).map(([name, o]) => `  --${name}${'default' in o ? ` (default ${String(o.default)})` : ''}`);
  return `Usage: tsx simulators/src/cli.ts [options]\n${lines.join('\n')}`;
}

function int(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
}

function rulesOf(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('--meta-rules must be a JSON object');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('--meta-rules must be a JSON object');
  return parsed as Record<string, unknown>;
}

async function main(): Promise<void> {
  const { values: v } = parseArgs({ options, strict: true });
  if (v.help) {
    console.log(usage());
    return;
  }
  const kommo = await startKommoSim({
    host: v.host,
    port: int('kommo-port', v['kommo-port']),
    seed: int('seed', v.seed),
    rps: int('rps', v.rps),
    accounts: [{ subdomain: v.subdomain, token: v['kommo-token'], contacts: int('contacts', v.contacts) }],
  });
  const wabaId = v['waba-id'];
  const whatsapp = await startWhatsAppSim({
    host: v.host,
    port: int('whatsapp-port', v['whatsapp-port']),
    appSecret: v['app-secret'],
    webhookUrl: v['webhook-url'] ?? null,
    statusDelayMs: int('status-delay-ms', v['status-delay-ms']),
    rules: rulesOf(v['meta-rules']),
    numbers: [{
      phoneNumberId: v['phone-number-id'], wabaId, token: v['wa-token'], displayPhoneNumber: v['display-phone'],
      verifiedName: 'Masivo Demo', throughput: int('throughput', v.throughput),
    }],
    templates: DEMO_TEMPLATES.map((t) => ({ ...t, wabaId })),
  });
  const fields = kommo.fields(v.subdomain);
  console.log([
    `Kommo simulator     ${kommo.url}`,
    `  KOMMO_BASE_URL    ${kommo.baseUrlTemplate}`,
    `  subdomain ${v.subdomain}  token ${v['kommo-token']}  contacts ${v.contacts}  phone field id ${fields.phoneFieldId}`,
    `WhatsApp simulator  ${whatsapp.url}`,
    `  WHATSAPP_GRAPH_URL ${whatsapp.graphUrl}`,
    `  phone number id ${v['phone-number-id']}  WABA id ${wabaId}  token ${v['wa-token']}  display ${v['display-phone']}`,
    `  webhooks -> ${v['webhook-url'] ?? '(none; set with POST /__control/configure {"webhookUrl": ...})'}  app secret ${v['app-secret']}`,
    'Ready. Ctrl+C to stop.',
  ].join('\n'));

  const stop = async () => {
    await Promise.allSettled([kommo.close(), whatsapp.close()]);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  console.error(usage());
  process.exit(1);
});
