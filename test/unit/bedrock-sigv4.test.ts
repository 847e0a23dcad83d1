// Both sides of SigV4 against AWS's own published test-suite values: the fake's independent verifier
// (canonical request, string to sign, signature) and our signer (Authorization header); then the Bedrock
// specifics — service `bedrock`, a model id with `:` signed as %253A, session tokens, payload tampering.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { modelPath, signRequest } from '../../src/gateway/providers/bedrock/signing.ts';
import { canonicalRequest, foldRawHeaders, verifySigV4, type RawSignedRequest } from '../helpers/sigv4-verifier.ts';

interface VectorCase {
  name: string;
  method: string;
  target: string;
  headers: Record<string, string[]>;
  body: string;
  creq: string;
  sts: string;
  authz: string;
  sessionToken?: string;
  signerSkip?: string;
}
const suite = JSON.parse(
  readFileSync(new URL('../fixtures/bedrock/sigv4-test-vectors.json', import.meta.url), 'utf8'),
) as {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
  signingDate: string;
  cases: VectorCase[];
};
const secretFor = (id: string) => (id === suite.accessKeyId ? suite.secretAccessKey : undefined);
const signatureOf = (authz: string) => /Signature=([0-9a-f]{64})/.exec(authz)![1];

t.test('the verifier reproduces the AWS test-suite canonical request, string to sign and signature', async (t) => {
  for (const c of suite.cases) {
    const req: RawSignedRequest = {
      method: c.method,
      target: c.target,
      headers: { ...c.headers, authorization: [c.authz] },
      body: c.body,
    };
    const check = verifySigV4(req, secretFor);
    t.equal(check.canonicalRequest, c.creq, `${c.name}: canonical request`);
    t.equal(check.stringToSign, c.sts, `${c.name}: string to sign`);
    t.equal(check.expectedSignature, signatureOf(c.authz), `${c.name}: signature`);
    t.ok(check.ok, `${c.name}: verifies`);
  }
});

t.test(
  'the verifier rejects a wrong secret, a changed body, a changed signed header and an unsigned x-amz header',
  async (t) => {
    const c = suite.cases.find((v) => v.name === 'post-header-key-sort')!;
    const req = (over: Partial<RawSignedRequest>): RawSignedRequest => ({
      method: c.method,
      target: c.target,
      headers: { ...c.headers, authorization: [c.authz] },
      body: c.body,
      ...over,
    });
    t.notOk(verifySigV4(req({}), () => 'not-the-secret').ok, 'wrong secret');
    t.notOk(verifySigV4(req({ body: 'changed' }), secretFor).ok, 'body changed');
    t.notOk(
      verifySigV4(req({ headers: { ...c.headers, 'my-header1': ['value2'], authorization: [c.authz] } }), secretFor).ok,
      'signed header changed',
    );
    const unsigned = verifySigV4(
      req({ headers: { ...c.headers, 'x-amz-security-token': ['t'], authorization: [c.authz] } }),
      secretFor,
    );
    t.notOk(unsigned.ok);
    t.match(unsigned.reason, /x-amz-security-token is not signed/);
    t.notOk(verifySigV4(req({ headers: { ...c.headers } }), secretFor).ok, 'no Authorization');
  },
);

t.test('our signer produces the AWS test-suite Authorization headers', async (t) => {
  for (const c of suite.cases) {
    if (c.signerSkip) continue;
    const headers: Record<string, string> = {};
    for (const [name, values] of Object.entries(c.headers)) {
      if (name !== 'host' && name !== 'x-amz-date' && name !== 'x-amz-security-token') headers[name] = values.join(',');
    }
    const signed = await signRequest(
      { method: c.method, url: new URL(`https://example.amazonaws.com${c.target}`), headers, body: c.body },
      {
        credentials: {
          accessKeyId: suite.accessKeyId,
          secretAccessKey: suite.secretAccessKey,
          sessionToken: c.sessionToken,
        },
        region: suite.region,
        service: suite.service,
        date: new Date(suite.signingDate),
      },
    );
    t.equal(signed.authorization, c.authz, c.name);
    t.equal(signed['x-amz-date'], '20150830T123600Z', `${c.name}: x-amz-date`);
    if (c.sessionToken) t.equal(signed['x-amz-security-token'], c.sessionToken, `${c.name}: session token header`);
  }
});

const credentials = { accessKeyId: 'AKIDBEDROCKTEST', secretAccessKey: 'bedrock-secret-key' };
const bedrockSecret = (id: string) => (id === credentials.accessKeyId ? credentials.secretAccessKey : undefined);

async function signedConverse(modelId: string, sessionToken?: string) {
  const url = new URL(modelPath('', modelId, 'converse'), 'https://bedrock-runtime.us-east-1.amazonaws.com');
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
  const headers = await signRequest(
    { method: 'POST', url, headers: { 'content-type': 'application/json', accept: 'application/json' }, body },
    { credentials: { ...credentials, sessionToken }, region: 'us-east-1', date: new Date('2026-11-23T10:00:00Z') },
  );
  const raw: string[] = [];
  for (const [k, v] of Object.entries(headers)) raw.push(k, v);
  return {
    url,
    body,
    headers,
    req: { method: 'POST', target: url.pathname, headers: foldRawHeaders(raw), body } as RawSignedRequest,
  };
}

t.test('a Bedrock model id with ":" goes on the wire as %3A and signs as %253A (service bedrock)', async (t) => {
  const { url, headers, req } = await signedConverse('anthropic.claude-3-5-haiku-20241022-v1:0');
  t.equal(url.pathname, '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
  t.match(headers.authorization, /Credential=AKIDBEDROCKTEST\/20261123\/us-east-1\/bedrock\/aws4_request/);
  const check = verifySigV4(req, bedrockSecret);
  t.ok(check.ok, check.reason ?? 'verifies');
  t.match(check.canonicalRequest, /^POST\n\/model\/anthropic\.claude-3-5-haiku-20241022-v1%253A0\/converse\n/);
  // Single encoding in the canonical path gives a different signature: the recurring gateway bug.
  const single = canonicalRequest(req, check.signedHeaders!, 'x').replace('%253A', '%3A');
  t.not(single, canonicalRequest(req, check.signedHeaders!, 'x'));
});

t.test('an inference-profile ARN (":" and "/") signs with both double-encoded', async (t) => {
  const arn = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0';
  const { url, req } = await signedConverse(arn);
  t.match(url.pathname, /^\/model\/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus\./);
  const check = verifySigV4(req, bedrockSecret);
  t.ok(check.ok, check.reason ?? 'verifies');
  t.match(check.canonicalRequest, /arn%253Aaws%253Abedrock.*inference-profile%252Fus\./);
});

t.test('session credentials sign x-amz-security-token', async (t) => {
  const { headers, req } = await signedConverse('amazon.nova-lite-v1:0', 'session-token-value');
  t.equal(headers['x-amz-security-token'], 'session-token-value');
  const check = verifySigV4(req, bedrockSecret);
  t.ok(check.ok, check.reason ?? 'verifies');
  t.ok(check.signedHeaders!.includes('x-amz-security-token'));
});
