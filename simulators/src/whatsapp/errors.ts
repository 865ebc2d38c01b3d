// Graph API error codes with the official HTTP statuses (see the reference table) and the two
// shapes errors take: synchronous (Graph error body) and in status webhooks (flatter).
import { randomTraceId } from '../shared/server';

interface CatalogEntry {
  title: string;
  http: number;
  details: string;
}

const CATALOG: Record<number, CatalogEntry> = {
  0: { title: 'AuthException', http: 401, details: 'We were unable to authenticate the app user.' },
  1: { title: 'API Unknown', http: 400, details: 'Invalid request or possible server error.' },
  2: { title: 'API Service', http: 503, details: 'Temporary due to downtime or due to being overloaded.' },
  3: { title: 'API Method', http: 500, details: 'Capability or permissions issue.' },
  4: { title: 'API Too Many Calls', http: 400, details: 'The app has reached its API call rate limit.' },
  10: { title: 'Permission Denied', http: 403, details: 'Permission is either not granted or has been removed.' },
  100: { title: 'Invalid parameter', http: 400, details: 'Invalid parameter.' },
  190: { title: 'Access token has expired', http: 401, details: 'Your access token has expired.' },
  200: { title: 'API Permission', http: 403, details: 'Permission is either not granted or has been removed.' },
  368: { title: 'Temporarily blocked for policies violations', http: 403, details: 'The WhatsApp Business Account associated with the app has been restricted or disabled for violating a platform policy.' },
  80007: { title: 'Rate limit issues', http: 400, details: 'The WhatsApp Business Account has reached its rate limit.' },
  80008: { title: 'There have been too many calls to this WhatsApp Business account. Wait a bit and try again.', http: 400, details: 'Too many management calls to this WhatsApp Business Account in the last hour.' },
  410: { title: 'Message expired', http: 400, details: 'Message failed to send during its Time To Live (TTL) duration.' },
  131055: { title: 'Method not allowed', http: 400, details: 'Only marketing template messages are supported on the Marketing Messages API for WhatsApp.' },
  134100: { title: 'Template type not supported', http: 400, details: 'Non-marketing templates are not supported on the Marketing Messages API for WhatsApp.' },
  134101: { title: 'Template not yet synced', http: 400, details: 'The template is still syncing with the Marketing Messages API for WhatsApp. Retry in about 10 minutes.' },
  134102: { title: 'Template or user not eligible', http: 400, details: 'The template is unavailable, or the user is not eligible for the Marketing Messages API for WhatsApp.' },
  130429: { title: 'Rate limit hit', http: 400, details: 'Cloud API message throughput has been reached.' },
  130472: { title: "User's number is part of an experiment", http: 400, details: "Message was not sent as part of an experiment." },
  131000: { title: 'Something went wrong', http: 500, details: 'Message failed to send because of an unknown error.' },
  131005: { title: 'Access denied', http: 403, details: 'Permission is either not granted or has been removed.' },
  131008: { title: 'Required parameter is missing', http: 400, details: 'The request is missing a required parameter.' },
  131009: { title: 'Parameter value is not valid', http: 400, details: 'One or more parameter values are invalid.' },
  131016: { title: 'Service unavailable', http: 500, details: 'A service is temporarily unavailable.' },
  131021: { title: 'Recipient cannot be sender', http: 400, details: 'Sender and recipient phone number is the same.' },
  131026: { title: 'Message undeliverable', http: 400, details: 'Unable to deliver message. Reasons can include: the recipient phone number is not a WhatsApp phone number.' },
  131031: { title: 'Business Account locked', http: 403, details: 'The WhatsApp Business Account associated with the app has been restricted or disabled.' },
  131042: { title: 'Business eligibility payment issue', http: 400, details: 'There was an error related to your payment method.' },
  131047: { title: 'Re-engagement message', http: 400, details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.' },
  131048: { title: 'Spam rate limit hit', http: 400, details: 'Message failed to send because there are restrictions on how many messages can be sent from this phone number.' },
  131049: { title: 'This message was not delivered to maintain healthy ecosystem engagement.', http: 400, details: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.' },
  131050: { title: 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.', http: 400, details: 'The recipient has stopped marketing messages from this business.' },
  131051: { title: 'Unsupported message type', http: 400, details: 'Unsupported message type.' },
  131056: { title: '(Business Account, Consumer Account) pair rate limit hit', http: 400, details: 'Too many messages sent from the sender phone number to the same recipient phone number in a short period of time.' },
  131062: { title: 'Business-scoped User ID recipients are not supported for this message.', http: 400, details: 'This message type cannot be sent to a business-scoped user ID.' },
  131057: { title: 'Account in maintenance mode', http: 500, details: 'Business Account is in maintenance mode.' },
  132000: { title: 'Number of parameters does not match the expected number of params', http: 400, details: 'The number of variable parameter values does not match the number of variables in the template.' },
  132001: { title: 'Template name does not exist in the translation', http: 404, details: 'The template does not exist in the specified language or has not been approved.' },
  132005: { title: 'Translated text too long', http: 400, details: 'Translated text is too long.' },
  132007: { title: 'Template format character policy violated', http: 400, details: 'Template content violates a WhatsApp policy.' },
  132012: { title: 'Parameter format does not match format in the created template', http: 400, details: 'Variable parameter values formatted incorrectly.' },
  132015: { title: 'Template is Paused', http: 400, details: 'Template is paused due to low quality so it cannot be sent in a template message.' },
  132016: { title: 'Template is Disabled', http: 400, details: 'Template has been paused too many times due to low quality and is now permanently disabled.' },
  133010: { title: 'Phone number not registered', http: 400, details: 'The phone number is not registered on the WhatsApp Business Platform.' },
};

export const ERROR_DOCS_HREF = '/documentation/business-messaging/whatsapp/support/error-codes';

function entry(code: number): CatalogEntry {
  return CATALOG[code] ?? { title: 'Unknown error', http: 400, details: 'Unknown error.' };
}

export function httpStatusOf(code: number): number {
  return entry(code).http;
}

export interface GraphError {
  status: number;
  body: { error: Record<string, unknown> };
}

/** Synchronous error: `{error:{message:'(#code) title', type, code, error_data, fbtrace_id}}`. */
export function graphError(code: number, details?: string, extra: Record<string, unknown> = {}, status?: number): GraphError {
  const e = entry(code);
  return {
    status: status ?? e.http,
    body: {
      error: {
        message: `(#${code}) ${e.title}`,
        type: 'OAuthException',
        code,
        error_data: { messaging_product: 'whatsapp', details: details ?? e.details },
        ...extra,
        fbtrace_id: randomTraceId(),
      },
    },
  };
}

/** The token error Graph gives for a token it cannot parse or does not know. */
export function invalidTokenError(): GraphError {
  return {
    status: 401,
    body: {
      error: {
        message: 'Invalid OAuth access token - Cannot parse access token',
        type: 'OAuthException',
        code: 190,
        fbtrace_id: randomTraceId(),
      },
    },
  };
}

/** Graph's answer for an id that does not exist or the token cannot see. */
export function unknownObjectError(id: string, method: string): GraphError {
  return {
    status: 400,
    body: {
      error: {
        message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
        type: 'GraphMethodException',
        code: 100,
        error_subcode: 33,
        fbtrace_id: randomTraceId(),
      },
    },
  };
}

/** Template-management errors carry a subcode and user-facing title and message. */
export function templateError(subcode: number | null, userTitle: string, userMsg: string): GraphError {
  const extra: Record<string, unknown> = { is_transient: false, error_user_title: userTitle, error_user_msg: userMsg };
  if (subcode !== null) extra.error_subcode = subcode;
  return graphError(100, userMsg, extra);
}

/** The error object inside a `failed` status webhook. */
export function webhookError(code: number) {
  const e = entry(code);
  return { code, title: e.title, message: e.title, error_data: { details: e.details }, href: ERROR_DOCS_HREF };
}
