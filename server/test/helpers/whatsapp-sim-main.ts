// Runs the WhatsApp simulator alone in this process (see whatsapp-sim-process.ts).
import { startWhatsAppSim, type WhatsAppSimOptions } from '@masivo/simulators/whatsapp';

const options = JSON.parse(process.argv[2] ?? '{}') as WhatsAppSimOptions;
const sim = await startWhatsAppSim({ ...options, host: '127.0.0.1', port: 0 });
process.stdout.write(`READY ${sim.url}\n`);
const stop = () => void sim.close().finally(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// The parent's end is ours too.
process.stdin.on('end', stop);
process.stdin.resume();
