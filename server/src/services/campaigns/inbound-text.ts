/**
 * A message a person sent to one of the tenant's numbers, as read from Meta's webhook. Here
 * rather than beside the parser (engine/campaigns/webhook-payload.ts) because the services that
 * record replies take it too, and the engine imports services, never the other way round.
 */
export interface InboundText {
  phoneNumberId: string;
  /** `entry.id`: the WABA the number belongs to; routing requires it to match the account's. */
  wabaId: string;
  from: string;
  text: string;
  /** A quick-reply tap's `button.payload` (ours are signed: see button-payload.ts), else null. */
  buttonPayload: string | null;
  /** `from_user_id` / `contacts[].user_id` (BSUID), when sent; `from` is '' for a username user. */
  userId?: string | null;
  /** Meta's id of the message (`id`); replies are kept once per number and wamid. */
  wamid?: string | null;
  /** As Meta names it: text, button, interactive, image, audio, reaction… */
  type?: string;
  /** The text written, the button's text or the interactive reply's title; null for media. */
  body?: string | null;
  /** `context.id`: the message this one answers. */
  contextWamid?: string | null;
  /** Meta's `timestamp` of the message; null when absent or unreadable. */
  sentAt?: Date | null;
}
