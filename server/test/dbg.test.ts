import { it } from 'vitest';
import { startRemoteEngineBed, waitFor } from './helpers/engine-bed';
it('dbg', async () => {
  const bed = await startRemoteEngineBed({ numbers: [{ phoneNumberId: '1001', wabaId: '2001', token: 'tok-a', rate: 25 }], contacts: 80 });
  const vip = await bed.launch(0, { tags: ['vip'] }, 'VIP');
  const rest = await bed.launch(0, { tags: ['general'] }, 'General');
  await waitFor(() => bed.campaign(rest.id), (c) => c.status === 'completed', 20000);
  await waitFor(() => bed.campaign(vip.id), (c) => c.status === 'completed', 20000);
  const ms = (await bed.sim.messages(500)).messages;
  const t0 = ms[0].at;
  console.log(ms.map((m, i) => `${Math.round(m.at - t0)}:${m.bizOpaque?.split(':')[1]}${i > 0 && m.at - ms[i-1].at > 60 ? ' GAP' + Math.round(m.at - ms[i-1].at) : ''}`).join(' '));
  console.log('max', await bed.sim.maxInAnyWindow('1001'));
  console.log([...bed.engine.senders.values()].map(s => s.stats));
  await bed.close();
}, 60000);
