import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { call } from './helpers/graph';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

describe('simulators CLI', () => {
  it('starts both simulators, prints their URLs and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--kommo-port', '0', '--whatsapp-port', '0', '--contacts', '500',
      '--kommo-token', 'k', '--wa-token', 'w', '--phone-number-id', '111', '--waba-id', '222',
      '--meta-rules', '{"legacyLimitShape":"also"}'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const start = Date.now();
      while (!out.includes('Ready.')) {
        if (Date.now() - start > 15_000) throw new Error(`CLI did not start:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const kommoBase = /KOMMO_BASE_URL\s+(\S+)/.exec(out)?.[1] as string;
      const graphUrl = /WHATSAPP_GRAPH_URL\s+(\S+)/.exec(out)?.[1] as string;
      const contacts = await call(`${kommoBase.replace('{subdomain}', 'demo')}/api/v4/contacts?limit=250&page=2`, { token: 'k' });
      expect(contacts.json._embedded.contacts).toHaveLength(250);
      const phone = await call(`${graphUrl}/111`, { token: 'w' });
      expect(phone.json).toMatchObject({ id: '111', whatsapp_business_manager_messaging_limit: 'TIER_10K', messaging_limit_tier: 'TIER_10K' });
      const templates = await call(`${graphUrl}/222/message_templates`, { token: 'w' });
      expect(templates.json.data.map((t: any) => t.name)).toEqual(['bienvenida', 'promo_mensual', 'recordatorio_pago', 'promo_imagen', 'confirmacion_pedido', 'cupon_descuento', 'novedades_temporada']);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
