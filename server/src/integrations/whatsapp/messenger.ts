import { Pool, errors as undiciErrors, type Dispatcher } from 'undici';
import { classifyGraphError, type ErrorClass } from './send-errors';
import { addressOf } from './recipient-address';
import { PRODUCT_POLICY, ROUTE_MARKETING, type SendRoute } from './marketing-messages';
import { endHttpClientSpan, httpClientAttributes, SpanKind, startSpan, tracingOn } from '../../lib/tracing';

/**
 * Template sends for the campaign sender: one keep-alive pool per sending number, explicit
 * timeouts, and every result classified so the sender knows whether the message went out.
 *
 * The Cloud API has no idempotency key, so the one distinction that matters is whether a
 * failure happened BEFORE the request could reach Meta (safe to retry) or AFTER it was
 * written (it may have been sent: never resend, wait for the webhook).
 */

export type MediaObject = { link?: string; id?: string; filename?: string };
/** Parameter shapes of Meta's Cloud API reference; `parameter_name` only for NAMED templates. */
export type SendParameter =
  | { type: 'text'; text: string; parameter_name?: string }
  | { type: 'image'; image: MediaObject }
  | { type: 'video'; video: MediaObject }
  | { type: 'document'; document: MediaObject }
  | { type: 'location'; location: { latitude: string; longitude: string; name?: string; address?: string } }
  | { type: 'payload'; payload: string }
  | { type: 'coupon_code'; coupon_code: string };

/** One entry of `template.components`; button `index` is a string, as Meta's examples send it. */
export type SendComponentParam =
  | { type: 'header' | 'body'; parameters: SendParameter[] }
  | { type: 'button'; sub_type: 'url' | 'quick_reply' | 'copy_code'; index: string; parameters: SendParameter[] };
export type SendComponent = SendComponentParam;

export interface TemplateSend {
  phoneNumberId: string;
  /** Decrypted; only ever placed in the Authorization header. */
  accessToken: string;
  /** E.164, or the person's BSUID when no phone is known (sent as `recipient`, see recipient-address.ts). */
  to: string;
  templateName: string;
  language: string;
  components: SendComponentParam[];
  /** Echoed by every status webhook: how a lost response is reconciled. */
  bizOpaque: string;
  /**
   * `marketing_messages` (a MARKETING template of an onboarded portfolio): POST
   * /{id}/marketing_messages with `product_policy: STRICT` (marketing-messages.ts); else /messages.
   */
  route?: SendRoute;
}

export type SendOutcome =
  /** `held`: Meta answered `message_status: held_for_quality_assessment` (template pacing). */
  | { kind: 'ok'; wamid: string; held?: boolean }
  | { kind: 'retry'; code: number | null; message: string }
  | { kind: 'permanent'; code: number | null; message: string }
  | { kind: 'systemic'; code: number | null; message: string; reason: string; scope: 'account' | 'template' }
  /** The request may have reached Meta: do not resend; webhooks (or recovery) settle it. */
  | { kind: 'ambiguous'; message: string };

export interface WhatsAppMessenger {
  /**
   * `onWritten` is called the moment the request is handed to the socket (after any wait for
   * a connection): the time Meta counts it, which the pacer's window check is based on.
   */
  send(message: TemplateSend, onWritten?: () => void): Promise<SendOutcome>;
  close(): Promise<void>;
}

export interface MessengerOptions {
  /** WHATSAPP_GRAPH_URL, version included. */
  graphUrl: string;
  /** Sockets kept open; the sender never has more requests in flight than this. */
  connections: number;
  connectTimeoutMs?: number;
  /** Time allowed for Meta's answer once the request is written. */
  responseTimeoutMs?: number;
}

/** Errors raised while connecting: the request never left this process. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export function createWhatsAppMessenger(opts: MessengerOptions): WhatsAppMessenger {
  const base = new URL(opts.graphUrl.replace(/\/+$/, ''));
  const basePath = base.pathname.replace(/\/+$/, '');
  const responseTimeout = opts.responseTimeoutMs ?? 15_000;
  const pool = new Pool(base.origin, {
    connections: opts.connections,
    pipelining: 1,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 30_000,
    connect: { timeout: opts.connectTimeoutMs ?? 5_000 },
    headersTimeout: responseTimeout,
    bodyTimeout: responseTimeout,
  });

  return {
    send(m, onWritten) {
      const marketing = m.route === ROUTE_MARKETING;
      const body = JSON.stringify({
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        ...addressOf(m.to),
        type: 'template',
        biz_opaque_callback_data: m.bizOpaque,
        template: {
          name: m.templateName,
          language: { code: m.language },
          ...(m.components.length ? { components: m.components } : {}),
        },
        ...(marketing ? { product_policy: PRODUCT_POLICY } : {}),
      });
      const path = `${basePath}/${encodeURIComponent(m.phoneNumberId)}/${marketing ? ROUTE_MARKETING : 'messages'}`;
      // The Graph call's client span (lib/tracing.ts), a child of the sender's span of the recipient.
      const span = tracingOn()
        ? startSpan('POST', { kind: SpanKind.CLIENT, attributes: httpClientAttributes('POST', new URL(path, base.origin), 'whatsapp-graph') })
        : null;
      return new Promise<SendOutcome>((settle) => {
        const resolve = span
          ? (outcome: SendOutcome) => {
              endHttpClientSpan(span, statusCode || null, statusCode ? undefined : { code: outcome.kind === 'retry' ? 'not_sent' : 'no_answer' });
              settle(outcome);
            }
          : settle;
        let written = false;
        let statusCode = 0;
        const chunks: Buffer[] = [];
        const markWritten = () => {
          if (written) return;
          written = true;
          onWritten?.();
        };
        const handler: Dispatcher.DispatchHandler = {
          onRequestStart: markWritten,
          onResponseStart: (_controller, status) => {
            statusCode = status;
          },
          onResponseData: (_controller, chunk) => {
            chunks.push(chunk);
          },
          onResponseEnd: () => resolve(responseOutcome(statusCode, Buffer.concat(chunks).toString('utf8'))),
          onResponseError: (_controller, err) => {
            const outcome = transportOutcome(err, written);
            markWritten();
            resolve(outcome);
          },
        };
        try {
          pool.dispatch(
            {
              method: 'POST',
              path,
              headers: { authorization: `Bearer ${m.accessToken}`, 'content-type': 'application/json', accept: 'application/json' },
              body,
            },
            handler,
          );
        } catch (err) {
          markWritten();
          resolve(transportOutcome(err, false));
        }
      });
    },
    close: () => pool.close(),
  };
}

/**
 * A failure before the request reached the socket (no connection, refused, DNS) means it was
 * never sent: safe to retry. After it was written, Meta may have accepted it: ambiguous.
 */
function transportOutcome(err: unknown, written: boolean): SendOutcome {
  const e = err as { code?: string; message?: string };
  if (!written || err instanceof undiciErrors.ConnectTimeoutError || (e?.code && NOT_SENT_CODES.has(e.code))) {
    return { kind: 'retry', code: null, message: `Sin conexión con WhatsApp (${e?.code ?? 'sin respuesta'})` };
  }
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return { kind: 'ambiguous', message: 'WhatsApp no respondió a tiempo' };
  }
  return { kind: 'ambiguous', message: `Se perdió la conexión con WhatsApp (${e?.code ?? e?.message ?? 'error'})` };
}

interface GraphErrorJson {
  error?: { code?: number; message?: string; error_data?: { details?: string } };
  messages?: Array<{ id?: string; message_status?: string }>;
}

export function responseOutcome(statusCode: number, text: string): SendOutcome {
  let json: GraphErrorJson | null = null;
  try {
    json = text ? (JSON.parse(text) as GraphErrorJson) : null;
  } catch {
    json = null;
  }
  if (statusCode >= 200 && statusCode < 300) {
    const wamid = json?.messages?.[0]?.id;
    // Accepted without an id cannot be matched by wamid; the callback data still settles it.
    if (!wamid) return { kind: 'ambiguous', message: 'Respuesta de WhatsApp sin id de mensaje' };
    // Meta holds new or unpaused marketing templates for a while before delivering them.
    const held = json?.messages?.[0]?.message_status === 'held_for_quality_assessment';
    return held ? { kind: 'ok', wamid, held } : { kind: 'ok', wamid };
  }
  const code = typeof json?.error?.code === 'number' ? json.error.code : null;
  const details = json?.error?.error_data?.details;
  const message = (json?.error?.message ?? `HTTP ${statusCode}`) + (details ? `: ${details}` : '');
  const verdict: ErrorClass = classifyGraphError(code, statusCode);
  if (verdict.kind === 'systemic') return { kind: 'systemic', code, message, reason: verdict.reason, scope: verdict.scope };
  if (verdict.kind === 'ambiguous') return { kind: 'ambiguous', message: `WhatsApp respondió ${message.slice(0, 200)} sin detalle: el mensaje pudo haberse enviado` };
  return { kind: verdict.kind, code, message: message.slice(0, 500) };
}
