// PLACEHOLDER (issue 13, pre-flight branch): the sending-hours part replaces this whole file
// at merge with the real window logic. Only the signature of `estimateFinish` is relied upon.

/** Placeholder shape of a campaign's "Horario de envío" (the real file defines it). */
export interface SendingHours {
  days: number[];
  start: string;
  end: string;
}

/** Placeholder: the ETA at the number's rate, ignoring sending hours. */
export function estimateFinish(input: {
  now: Date;
  ratePerSecond: number;
  recipientsByZone: Array<{ timeZone: string; country: string | null; count: number }>;
  hours: SendingHours | null;
}): { finishAt: Date; sendingSeconds: number; waitingSeconds: number } {
  const total = input.recipientsByZone.reduce((sum, z) => sum + z.count, 0);
  const sendingSeconds = total / Math.max(1, input.ratePerSecond);
  return { finishAt: new Date(input.now.getTime() + sendingSeconds * 1000), sendingSeconds, waitingSeconds: 0 };
}
