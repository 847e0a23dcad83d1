// The worker-thread task that signs webhook deliveries: HMAC-SHA256 of each raw body, as lowercase hex.
import { hmacHex } from './signature.ts';

export interface WebhookSignInput {
  secret: string;
  bodies: string[];
}

export function signWebhookBodies({ secret, bodies }: WebhookSignInput): string[] {
  return bodies.map((body) => hmacHex(secret, body));
}
