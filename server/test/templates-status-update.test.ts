import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyTemplateStatusUpdate, type TemplateStatusUpdate } from '../src/services/templates/status-update';
import { NUMBER, createAccount, startWhatsAppTestBed, type WhatsAppTestBed } from './helpers/whatsapp-fixtures';

/**
 * The webhook route belongs to the campaign suite; here the simulator's real
 * `message_template_status_update` posts are captured and handed to the service it calls.
 */
let bed: WhatsAppTestBed;
let receiver: Server;
const received: Array<{ wabaId: string; value: TemplateStatusUpdate }> = [];
let owner: { headers: { authorization: string }; userId: number };
let accountId: number;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw);
      for (const entry of body.entry ?? []) {
        for (const change of entry.changes ?? []) {
          if (change.field === 'message_template_status_update') received.push({ wabaId: entry.id, value: change.value });
        }
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  bed = await startWhatsAppTestBed({ webhookUrl: `http://127.0.0.1:${port}/hook`, rejectTemplatesMatching: /rechaz/ });
  owner = await bed.t.signUp();
  accountId = (await createAccount(bed.t, owner.headers)).id;
});
afterAll(async () => {
  await bed.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const create = (name: string, body = 'Hola {{1}}, tu pedido sale hoy.', samples = ['Ana']) =>
  bed.t.app.inject({
    method: 'POST',
    url: '/api/templates/create',
    headers: owner.headers,
    payload: {
      whatsapp_account_id: accountId,
      name,
      components: [{ type: 'BODY', text: body }],
      templateSamples: { header: [], body: samples, footer: [] },
    },
  });
const get = async (id: number) => (await bed.t.app.inject({ method: 'GET', url: `/api/templates/${id}`, headers: owner.headers })).json();

/** Meta reviews after approvalDelayMs; flushWebhooks only covers posts already scheduled. */
async function deliverWebhooks() {
  for (let i = 0; i < 100 && bed.sim.templatesOf(NUMBER.wabaId).some((t) => t.status === 'PENDING'); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  await bed.sim.flushWebhooks();
  for (const { wabaId, value } of received.splice(0)) await applyTemplateStatusUpdate(bed.t.ctx.db, wabaId, value);
}

describe('template status updates from Meta', () => {
  it('approves a submitted template when Meta approves it', async () => {
    const { template } = (await create('aprobable')).json();
    expect(template.status).toBe('pending');
    await deliverWebhooks();
    expect(await get(template.id)).toMatchObject({ status: 'approved', rejection_reason: null });
  });

  it('rejects with Meta’s reason (name rule and adjacent placeholders)', async () => {
    const byName = (await create('rechazada')).json().template;
    const adjacent = (await create('pegadas', 'Hola {{1}}{{2}} listo', ['Ana', 'Pérez'])).json().template;
    expect(adjacent.status).toBe('pending');
    await deliverWebhooks();
    expect(await get(byName.id)).toMatchObject({ status: 'rejected' });
    expect((await get(byName.id)).rejection_reason).toMatch(/^INVALID_FORMAT/);
    expect(await get(adjacent.id)).toMatchObject({ status: 'rejected' });
    expect((await get(adjacent.id)).rejection_reason).toMatch(/^INVALID_FORMAT: .+/);
  });

  it('follows pause, disable and reinstatement, ignores FLAGGED, and deletes on DELETED', async () => {
    const { template } = (await create('vaiven')).json();
    await deliverWebhooks();
    const update = (event: string, reason: string | null = null) =>
      applyTemplateStatusUpdate(bed.t.ctx.db, NUMBER.wabaId, {
        event,
        message_template_id: Number(template.meta_id),
        message_template_name: 'vaiven',
        message_template_language: 'es',
        reason,
      });
    await update('PAUSED', 'LOW_QUALITY');
    expect(await get(template.id)).toMatchObject({ status: 'paused', rejection_reason: 'LOW_QUALITY' });
    await update('FLAGGED');
    expect((await get(template.id)).status).toBe('paused');
    await update('REINSTATED');
    expect(await get(template.id)).toMatchObject({ status: 'approved', rejection_reason: null });
    await update('DISABLED');
    expect((await get(template.id)).status).toBe('disabled');
    await update('DELETED');
    const gone = await bed.t.app.inject({ method: 'GET', url: `/api/templates/${template.id}`, headers: owner.headers });
    expect(gone.statusCode).toBe(404);
  });

  it('ignores updates for an unknown WABA or template', async () => {
    await expect(
      applyTemplateStatusUpdate(bed.t.ctx.db, '999', {
        event: 'APPROVED',
        message_template_id: '1',
        message_template_name: 'x',
        message_template_language: 'es',
      }),
    ).resolves.toBeNull();
  });
});
