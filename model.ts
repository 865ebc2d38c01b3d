import { Pacer } from '/work/wt-pace/server/src/engine/campaigns/pacer';
function maxInWindow(times: number[], windowMs = 1000): number {
  let max = 0, j = 0;
  for (let i = 0; i < times.length; i++) { while (times[i] - times[j] >= windowMs) j++; max = Math.max(max, i - j + 1); }
  return max;
}
function drive(rate: number, n: number, seedIn = 7, pbMean = 0.7) {
  let now = 0; let seed = seedIn;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const exp = (mean: number) => -mean * Math.log(1 - random());
  const pacer = new Pacer(rate, () => now);
  const events: Array<{ t: number; kind: 'write' | 'answer'; entry: any }> = [];
  const arrivals: number[] = []; const writes: number[] = [];
  let sentCount = 0;
  while (sentCount < n || events.length) {
    events.sort((a, b) => a.t - b.t);
    while (events.length && events[0].t <= now) {
      const e = events.shift()!;
      if (e.kind === 'write') pacer.sent(e.entry); else pacer.answered(e.entry);
    }
    if (sentCount >= n) { now = events.length ? events[0].t : now; continue; }
    const wait = pacer.delay();
    if (wait > 0) {
      const nextEv = events.length ? events[0].t : Infinity;
      const wake = now + Math.ceil(wait) + random() * 0.5;
      now = Math.min(wake, Math.max(now + 0.05, nextEv));
      continue;
    }
    const entry = pacer.take(); sentCount++;
    const w = now + random() * 0.2;
    const lat = Math.min(80, 5 + exp(15));
    writes.push(w); arrivals.push(w + lat);
    events.push({ t: w, kind: 'write', entry });
    events.push({ t: w + lat + 0.3 + exp(pbMean), kind: 'answer', entry });
  }
  arrivals.sort((a, b) => a - b); writes.sort((a,b)=>a-b);
  const achieved = (writes.length - 1) / ((writes.at(-1)! - writes[0]) / 1000);
  return { max: maxInWindow(arrivals), achieved, pct: achieved / rate * 100, credit: pacer.rttCredit() };
}
for (const rate of [20, 80, 1000]) for (const n of [3000, 30000]) for (const seed of [7, 99]) {
  const r = drive(rate, n, seed);
  console.log(rate, n, seed, r.max, r.achieved.toFixed(2), r.pct.toFixed(2), r.credit.toFixed(2));
}
