import { startKommoSim } from './simulators/src/kommo/index';
const sim = await startKommoSim({ accounts: [{ subdomain: 'demo', token: 't', contacts: 1_000_000 }], rps: 1000 });
const h = { authorization: 'Bearer t' };
let r = await fetch(`${sim.url}/demo/api/v4/contacts?limit=2&page=3`, { headers: h });
console.log(r.status, r.headers.get('content-type'), JSON.stringify(await r.json()).slice(0, 1500));
let t = performance.now();
for (let p = 1; p <= 20; p++) { r = await fetch(`${sim.url}/demo/api/v4/contacts?limit=250&page=${p*190}`, { headers: h }); await r.text(); }
console.log('ms/page', (performance.now() - t) / 20);
t = performance.now();
for (let p = 1; p <= 20; p++) { r = await fetch(`${sim.url}/demo/api/v4/contacts?limit=250&page=${p*190}&order[updated_at]=desc`, { headers: h }); await r.text(); }
console.log('ms/page desc', (performance.now() - t) / 20);
r = await fetch(`${sim.url}/demo/api/v4/contacts?limit=250&page=4001`, { headers: h }); console.log(r.status, await r.text());
r = await fetch(`${sim.url}/demo/api/v4/contacts?limit=250&page=4000`, { headers: h }); const j:any = await r.json(); console.log(j._embedded.contacts.length, j._links);
r = await fetch(`${sim.url}/demo/api/v4/contacts`, { headers: { authorization: 'Bearer x' } }); console.log(r.status, await r.text());
console.log(sim.stats()); await sim.close();
