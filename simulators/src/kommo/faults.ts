// Faults a test injects into the Kommo simulator; each fires for the next `count` matching requests.

/**
 * emptyOk: a `200 {}` (no `_embedded`), as a faulty proxy in front of Kommo may answer.
 * lostAnswer: a write (adding notes) is done, then answered 500, as when a proxy drops the answer.
 * rateLimited: a 429 as Kommo answers it, whatever the request rate.
 */
export type KommoFaultKind = '5xx' | 'timeout' | 'failPageOnce' | 'unauthorized' | 'emptyOk' | 'lostAnswer' | 'rateLimited';

export interface KommoFault {
  kind: KommoFaultKind;
  /** Only requests to this account; any account when absent. */
  subdomain?: string;
  /** How many requests it affects; default 1. */
  count?: number;
  /** failPageOnce, emptyOk: the contacts page that fails; any contacts page when absent. */
  page?: number;
  /** Matching requests let through before the fault starts firing; default 0. */
  skip?: number;
  /** 5xx: the status to answer, default 500. */
  status?: number;
}

const KINDS: readonly KommoFaultKind[] = ['5xx', 'timeout', 'failPageOnce', 'unauthorized', 'emptyOk', 'lostAnswer', 'rateLimited'];

export function assertFault(f: unknown): asserts f is KommoFault {
  const kind = (f as { kind?: unknown } | null)?.kind;
  if (!KINDS.includes(kind as KommoFaultKind)) throw new Error(`unknown fault kind ${String(kind)}; use ${KINDS.join(', ')}`);
}

interface ActiveFault extends KommoFault {
  remaining: number;
}

export interface RequestInfo {
  subdomain: string;
  /** Set for GET /api/v4/contacts (the list). */
  contactsPage?: number;
  /** Set by a write handler once its work is done (lostAnswer faults fire only there). */
  write?: boolean;
}

export class FaultQueue {
  private faults: ActiveFault[] = [];

  add(f: KommoFault): void {
    assertFault(f);
    this.faults.push({ ...f, remaining: f.count ?? 1 });
  }

  /** The fault this request triggers, if any (consumed). */
  take(req: RequestInfo): KommoFault | null {
    const i = this.faults.findIndex((f) => {
      if (f.subdomain !== undefined && f.subdomain !== req.subdomain) return false;
      if ((f.kind === 'lostAnswer') !== (req.write === true)) return false;
      if (f.kind !== 'failPageOnce' && f.kind !== 'emptyOk') return true;
      return req.contactsPage !== undefined && (f.page === undefined || f.page === req.contactsPage);
    });
    if (i >= 0 && (this.faults[i].skip ?? 0) > 0) {
      this.faults[i].skip!--;
      return null;
    }
    if (i < 0) return null;
    const f = this.faults[i];
    if (--f.remaining <= 0) this.faults.splice(i, 1);
    return f;
  }

  clear(): void {
    this.faults = [];
  }
}
