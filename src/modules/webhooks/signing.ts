import { createHmac } from 'node:crypto';

/**
 * Signatures a receiver checks. `X-Service-Signature` (the spec's) is `sha256=<hex HMAC-SHA256 of the
 * raw body>` keyed with the secret's UTF-8 bytes, as GitHub signs. The Standard Webhooks headers
 * (standardwebhooks.com) sign `<id>.<timestamp>.<body>`; their key is the base64 after `whsec_` when
 * the secret is written that way (the standard's own format), otherwise the secret's UTF-8 bytes, so
 * a receiver verifies with `new Webhook(base64(secret))`.
 */

export interface SignedHeaders {
  'X-Service-Signature': string;
  'webhook-signature': string;
}

function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function signDelivery(
  secret: string,
  message: { id: string; timestamp: number; body: string },
): SignedHeaders {
  const hex = createHmac('sha256', Buffer.from(secret, 'utf8')).update(message.body).digest('hex');
  const standard = createHmac('sha256', standardKey(secret))
    .update(`${message.id}.${message.timestamp}.${message.body}`)
    .digest('base64');
  return { 'X-Service-Signature': `sha256=${hex}`, 'webhook-signature': `v1,${standard}` };
}
