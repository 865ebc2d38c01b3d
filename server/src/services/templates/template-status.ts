/**
 * Meta's template statuses (list API and status webhooks) as the console stores them:
 * lowercase, so the spec's approved / pending / rejected / disabled badges match directly.
 */
export function localTemplateStatus(metaStatus: string | null | undefined): string {
  const status = (metaStatus ?? '').trim().toUpperCase();
  switch (status) {
    case 'APPROVED':
    case 'REINSTATED':
    case 'UNPAUSED':
    case 'UNARCHIVED':
      return 'approved';
    case 'IN_APPEAL':
    case 'PENDING':
      return 'pending';
    case '':
      return 'pending';
    default:
      return status.toLowerCase();
  }
}

/** Meta sends reason NONE (or null) when there is nothing to explain. */
export function rejectionReasonOf(reason: string | null | undefined, detail?: string | null): string | null {
  const base = reason && reason.toUpperCase() !== 'NONE' ? reason : null;
  if (base && detail) return `${base}: ${detail}`;
  return base ?? detail ?? null;
}
