// The worker-thread task that signs a service-account JWT (RS256): RSA signing is the CPU work of a token fetch.
import { SignJWT, importPKCS8 } from 'jose';

export interface JwtSignInput {
  /** PKCS#8 PEM, as in a Google service-account key file. */
  privateKeyPem: string;
  /** Key id put in the header (`kid`), when known. */
  keyId?: string;
  claims: Record<string, unknown>;
}

export async function signJwt({ privateKeyPem, keyId, claims }: JwtSignInput): Promise<string> {
  const key = await importPKCS8(privateKeyPem, 'RS256');
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(keyId ? { kid: keyId } : {}) })
    .sign(key);
}
