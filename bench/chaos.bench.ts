/**
 * Chaos: a 20,000-recipient campaign on PostgreSQL while the server sending it is
 * killed with SIGKILL at random moments (at least 10 times) and restarted, with the WhatsApp
 * simulator in its own process and its webhooks flowing back. Checks that nothing is sent twice and nothing is lost:
 *   - the simulator sees zero duplicate sends;
 *   - every recipient ends settled (none pending or sending), the campaign completes;
 *   - `unknown` stays at most the rows in flight (claimed, intent committed) at the kills.
 *
 *   npx tsx bench/chaos.bench.ts [--recipients 20000] [--kills 10] [--rate 400]
 *
 * The scratch database is created for the run and dropped after it.
 */
import { parseArgs } from 'node:util';
import { simPromoTemplate } from '../server/test/helpers/campaign-fixtures';
import { CHAOS_WEBHOOK_SECRET, runChaos } from '../server/test/helpers/chaos-run';
import { startWhatsAppSimProcess } from '../server/test/helpers/whatsapp-sim-process';
import { PG_ADMIN_URL } from './lib/database';
import { printTable } from './lib/stats';

const { values: args } = parseArgs({
  options: {
    recipients: { type: 'string', default: '20000' },
    kills: { type: 'string', default: '10' },
    rate: { type: 'string', default: '400' },
  },
});
const recipients = Number(args.recipients);
const kills = Number(args.kills);
const rate = Number(args.rate);

const sim = await startWhatsAppSimProcess({
  appSecret: CHAOS_WEBHOOK_SECRET,
  templates: [simPromoTemplate('8001')],
  deliveryRate: 1,
  readRate: 0.5,
  statusDelayMs: 50,
});
try {
  // Spread the kills over the sending time (recipients / rate seconds).
  const sendingMs = (recipients / rate) * 1000;
  const perKill = Math.max(1_500, sendingMs / (kills + 1));
  const result = await runChaos({
    adminUrl: PG_ADMIN_URL,
    recipients,
    kills,
    ratePerSecond: rate,
    killAfterMs: [perKill * 0.5, perKill * 1.5],
    log: (line) => console.log(line),
    sim: {
      graphUrl: sim.graphUrl,
      setWebhookUrl: async (url) => void (await sim.control('POST', '/configure', { webhookUrl: url })),
      addNumber: async (n) => void (await sim.control('POST', '/numbers', { ...n, displayPhoneNumber: '5491100000000', throughput: 1000 })),
      counts: () => sim.counts(),
      duplicates: () => sim.duplicates(),
    },
  });
  const inFlight = result.inFlightAtKills.reduce((a, b) => a + b, 0);
  const rows: Array<[string, string, string, boolean]> = [
    ['SIGKILLs while sending', String(result.kills), `≥ ${kills}`, result.kills >= kills],
    ['duplicate sends seen by the simulator', String(result.duplicates), '0', result.duplicates === 0],
    ['recipients left pending or sending', String(result.unsettled), '0', result.unsettled === 0],
    ['campaign status', result.status, 'completed', result.status === 'completed'],
    ['unknown recipients', String(result.unknown), `≤ ${inFlight} (in flight at the kills)`, result.unknown <= inFlight],
    ['in flight at each kill', result.inFlightAtKills.join(', '), '', true],
    ['accepted by the simulator', String(result.accepted), `${result.counters.sent} counted sent + ≤ ${result.unknown} unknown`, result.accepted <= result.counters.sent + result.unknown],
    ['sent / delivered / read counted', `${result.counters.sent} / ${result.counters.delivered} / ${result.counters.read}`, `of ${recipients}`, true],
    ['wall time', `${result.seconds.toFixed(1)} s`, '', true],
  ];
  printTable(rows.map(([what, result, target, ok]) => [what, result, target, ok ? 'ok' : 'FAIL']), ['measure', 'result', 'target', '']);
} finally {
  await sim.close();
}
process.exit(0);
