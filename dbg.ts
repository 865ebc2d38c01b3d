import { Pacer } from '/work/wt-pace/server/src/engine/campaigns/pacer';
const rate = 20, n = 3000; let now = 0; let seed = 7;
const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
const exp = (mean: number) => -mean * Math.log(1 - random());
const pacer = new Pacer(rate, () => now);
const events: any[] = []; const sends: any[] = []; let sentCount = 0;
while (sentCount < n || events.length) {
  events.sort((a, b) => a.t - b.t);
  while (events.length && events[0].t <= now) { const e = events.shift()!; if (e.kind === 'write') pacer.sent(e.entry); else pacer.answered(e.entry); }
  if (sentCount >= n) { now = events.length ? events[0].t : now; continue; }
  const wait = pacer.delay();
  if (wait > 0) { const nextEv = events.length ? events[0].t : Infinity; now = Math.min(now + Math.ceil(wait) + random() * 0.5, Math.max(now + 0.05, nextEv)); continue; }
  const entry = pacer.take();
  const w = now + random() * 0.2; const lat = Math.min(80, 5 + exp(15));
  sends.push({ i: sentCount++, d: now, w, a: w + lat, entry });
  events.push({ t: w, kind: 'write', entry }); events.push({ t: w + lat + 0.3 + exp(0.7), kind: 'answer', entry });
}
for (let k = 0; k + rate < sends.length; k++) for (let j = k + rate; j < Math.min(sends.length, k + rate + 3); j++) {
  if (sends[j].a - sends[k].a < 1000) console.log(k, j, sends[k], sends[j].d, sends[j].a, sends[j].a - sends[k].a);
}
