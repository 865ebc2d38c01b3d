// Faults a test injects into sends; each fires for the next `count` matching sends.
import type { WhatsAppFault, WhatsAppFaultKind } from './types';

const KINDS: readonly WhatsAppFaultKind[] = ['5xx', 'timeout', 'lost_response', 'invalid_token', 'code'];

export class SendFaults {
  private faults: Array<WhatsAppFault & { remaining: number }> = [];

  add(f: WhatsAppFault): void {
    if (!KINDS.includes(f?.kind)) throw new Error(`unknown fault kind ${String(f?.kind)}; use ${KINDS.join(', ')}`);
    if (f.kind === 'code' && !Number.isInteger(f.code)) throw new Error("fault kind 'code' needs a numeric code");
    this.faults.push({ ...f, remaining: f.count ?? 1 });
  }

  take(phoneNumberId: string): WhatsAppFault | null {
    const i = this.faults.findIndex((f) => f.phoneNumberId === undefined || f.phoneNumberId === phoneNumberId);
    if (i < 0) return null;
    const f = this.faults[i];
    if (--f.remaining <= 0) this.faults.splice(i, 1);
    return f;
  }

  clear(): void {
    this.faults = [];
  }
}
