import { startWhatsAppSim, type WhatsAppSim, type WhatsAppSimOptions } from '@masivo/simulators/whatsapp';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from './app';
import { rowsOf } from '../../src/db/sql';

/** The Meta number every WhatsApp test talks to in the simulator. */
export const NUMBER = {
  phoneNumberId: '1001',
  wabaId: '2001',
  token: 'tok-1001',
  displayPhoneNumber: '+54 9 11 0000-0000',
  verifiedName: 'Masivo Demo',
  qualityRating: 'GREEN' as const,
};

export interface WhatsAppTestBed {
  t: TestApp;
  sim: WhatsAppSim;
  close(): Promise<void>;
}

export async function startWhatsAppTestBed(simOptions: WhatsAppSimOptions = {}): Promise<WhatsAppTestBed> {
  const sim = await startWhatsAppSim({ approvalDelayMs: 50, numbers: [NUMBER], ...simOptions });
  const t = await createTestApp({ WHATSAPP_GRAPH_URL: sim.graphUrl, PUBLIC_URL: 'https://masivo.example.com' });
  return {
    t,
    sim,
    async close() {
      await t.close();
      await sim.close();
    },
  };
}

export const accountPayload = (overrides: Record<string, unknown> = {}) => ({
  name: 'Cuenta Principal',
  phone_number: '+5491100000000',
  phone_number_id: NUMBER.phoneNumberId,
  access_token: NUMBER.token,
  business_account_id: NUMBER.wabaId,
  ...overrides,
});

export async function createAccount(t: TestApp, headers: Record<string, string>, overrides: Record<string, unknown> = {}) {
  const res = await t.app.inject({ method: 'POST', url: '/api/whatsapp-accounts', headers, payload: accountPayload(overrides) });
  if (res.statusCode !== 201) throw new Error(`create account failed: ${res.statusCode} ${res.body}`);
  return res.json() as { id: number; [k: string]: unknown };
}

/** A Kommo account row straight in the database (the Kommo API belongs to another suite). */
export async function insertKommoAccount(t: TestApp, userId: number, subdomain = 'demo'): Promise<number> {
  const [row] = await rowsOf<{ id: number }>(t.ctx.db, sql`
    insert into kommo_accounts (user_id, subdomain, access_token_enc, phone_field_id)
    values (${userId}, ${subdomain}, ${t.ctx.secrets.seal('kommo-token')}, 1) returning id`);
  return Number(row!.id);
}
