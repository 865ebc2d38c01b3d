import nodemailer from 'nodemailer';
import type { Config } from '../config';
import type { Log } from './log';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Outgoing mail over SMTP. `send` never holds a request: callers start it after answering and
 * learn the outcome through `onDone`; a failure is logged (without the message body, which holds
 * a secret link) and reported, never thrown. `idle()` waits for mails still in flight, so a
 * shutdown (or a test's teardown) does not cut one in half.
 */
export interface Mailer {
  readonly configured: boolean;
  send(mail: Mail, onDone: (error: string | null) => Promise<void>): void;
  idle(): Promise<void>;
}

export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM'>, log: Log): Mailer {
  const transport = config.SMTP_URL
    ? nodemailer.createTransport(config.SMTP_URL, { from: config.MAIL_FROM })
    : null;
  const inFlight = new Set<Promise<void>>();
  return {
    configured: !!transport,
    send(mail, onDone) {
      if (!transport) return;
      const job = (async () => {
        let error: string | null = null;
        try {
          await transport.sendMail({ from: config.MAIL_FROM, ...mail });
        } catch (err) {
          error = (err as Error)?.message?.slice(0, 300) || 'error desconocido';
          log.warn({ to: mail.to.replace(/^[^@]{0,2}[^@]*/, (m) => m.slice(0, 2) + '…'), error }, 'mail: not delivered');
        }
        try {
          await onDone(error);
        } catch (err) {
          log.warn({ err }, 'mail: outcome not stored');
        }
      })();
      inFlight.add(job);
      void job.finally(() => inFlight.delete(job));
    },
    async idle() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
  };
}
