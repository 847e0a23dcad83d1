// JSON Pointers (RFC 6901), as ajv reports where an error is (`instancePath`).

/** `/messages/0/content` → `['messages', 0, 'content']`: `~1` and `~0` unescaped, array indexes as numbers. */
export function decodePointer(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}
