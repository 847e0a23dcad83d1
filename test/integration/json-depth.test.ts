// Excessive JSON nesting is refused at validation with a 400, on every surface that takes a JSON body, in that
// surface's envelope: a few kilobytes of `[[[[…` used to overflow the stack where bodies are walked (the token
// estimate, the cache key, the REST API's text checks) and answer 500. The limit (100 levels) is tested at and one
// past its boundary.
import t from 'tap';
import { createApiKey } from '../../src/platform/store/repos/api-keys.ts';
import { MAX_JSON_DEPTH } from '../../src/platform/validation/json-depth.ts';
import { basicAuth } from '../helpers/public-api.ts';
import { bearer, call, checkError } from '../helpers/rest-api.ts';
import { baseConfig, postJson, startTestService } from '../helpers/service.ts';

/** JSON text of arrays nested `levels` deep around `inner`. */
const nested = (levels: number, inner = '') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

t.test('JSON nesting limit on every surface', async (t) => {
  const s = await startTestService(
    t,
    baseConfig({ plugins: [{ use: 'auth' }, { use: 'cache' }, { use: 'router' }, { use: 'tracing' }] }),
  );
  const apiKey = await createApiKey(s.service.db, {
    kind: 'project',
    organizationId: 'default',
    projectId: 'default',
    now: Date.now(),
  });

  t.test('gateway: 400 invalid_request in the OpenAI envelope', async (t) => {
    const refused = async (label: string, body: string, path = '/v1/chat/completions') => {
      const res = await postJson(s.gatewayUrl, path, body);
      const json = await res.json();
      t.equal(res.status, 400, `${label}: 400`);
      t.same(
        json,
        {
          error: {
            message: `Invalid request: the body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_request',
          },
        },
        `${label}: envelope`,
      );
      t.ok(res.headers.get('x-svc-request-id'), `${label}: request id`);
    };
    await refused(
      'message content nested 2,300 arrays deep',
      `{"model":"demo","messages":[{"role":"user","content":${nested(2_300, '"hi"')}}]}`,
    );
    await refused(
      'an unknown field nested 10,000 deep',
      `{"model":"demo","messages":[{"role":"user","content":"hi"}],"extra":${nested(10_000)}}`,
    );
    await refused(
      'embeddings input nested 5,000 deep',
      `{"model":"demo","input":${nested(5_000, '1')}}`,
      '/v1/embeddings',
    );
    // The body object is level 1, so a field holding n nested arrays reaches level n + 1.
    await refused(
      'one level past the limit',
      `{"model":"demo","messages":[{"role":"user","content":"hi"}],"extra":${nested(MAX_JSON_DEPTH)}}`,
    );
    const atLimit = await postJson(
      s.gatewayUrl,
      '/v1/chat/completions',
      `{"model":"demo","messages":[{"role":"user","content":"hi"}],"extra":${nested(MAX_JSON_DEPTH - 1)}}`,
    );
    t.equal(atLimit.status, 200, `a body exactly ${MAX_JSON_DEPTH} levels deep is served`);
    await atLimit.arrayBuffer();
  });

  t.test('REST API: 400 invalid_request in its envelope', async (t) => {
    const post = (metadataLevels: number) =>
      call(s.adminUrl, 'POST', '/traces', {
        auth: bearer(apiKey),
        raw: `{"name":"deep","metadata":{"m":${nested(metadataLevels)}}}`,
        contentType: 'application/json',
      });
    checkError(t, await post(5_000), 400, 'invalid_request', {
      message: `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`,
      details: { reason: `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`, location: 'body' },
    });
    checkError(t, await post(MAX_JSON_DEPTH - 1), 400, 'invalid_request');
    t.equal((await post(MAX_JSON_DEPTH - 2)).status, 201, `metadata reaching level ${MAX_JSON_DEPTH} is accepted`);
  });

  t.test('public API: 400 with a message', async (t) => {
    const res = await fetch(`${s.adminUrl}/api/public/scores`, {
      method: 'POST',
      headers: { authorization: basicAuth(apiKey), 'content-type': 'application/json' },
      body: `{"traceId":"t1","name":"quality","value":1,"metadata":${nested(5_000)}}`,
    });
    t.equal(res.status, 400);
    t.same(await res.json(), {
      message: `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`,
      error: 'InvalidRequestError',
    });
  });

  t.test('dashboard API: 400 invalid_request', async (t) => {
    const res = await fetch(`${s.adminUrl}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"email":${nested(5_000, '"a"')}}`,
    });
    t.equal(res.status, 400);
    t.match(await res.json(), {
      error: {
        code: 'invalid_request',
        message: `The request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep.`,
      },
    });
  });
});
