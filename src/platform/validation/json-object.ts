// The one test for "a JSON object" (not null, not an array) that parsed bodies, events and provider answers share.

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
