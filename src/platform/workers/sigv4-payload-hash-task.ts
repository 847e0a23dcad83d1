// The worker-thread task of Bedrock SigV4: the hex SHA-256 of a large request body, the one part of signing whose
// cost grows with the body (docs/providers/bedrock.md "Worker threads").
import { createHash } from 'node:crypto';

export function sigv4PayloadHash(body: string): string {
  return createHash('sha256').update(body, 'utf8').digest('hex');
}
