// The mock provider's JSON Schema sampler: what it makes validates with ajv (and ajv-formats) for the schemas clients
// send as tool parameters and structured-output formats, recursive ones included.
import { Ajv2020 } from 'ajv/dist/2020.js';
import t, { type Test } from 'tap';
import { sampleFromSchema } from '../../src/gateway/providers/mock/schema-sample.ts';
import { createAjv } from '../../src/platform/validation/ajv.ts';

const ajv = createAjv();

function validSample(t: Test, schema: object, text = 'Weather in Paris?', validator = ajv): unknown {
  const value = sampleFromSchema(schema, text);
  const valid = validator.validate(schema, value);
  t.ok(valid, `${JSON.stringify(value)} validates: ${validator.errorsText(validator.errors)}`);
  return value;
}

t.test('an OpenAI strict schema: required properties filled, strings from the text', async (t) => {
  const value = validSample(t, {
    type: 'object',
    additionalProperties: false,
    required: ['city', 'unit', 'days', 'hourly', 'note', 'tags', 'place'],
    properties: {
      city: { type: 'string', description: 'City name' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 3, maximum: 10 },
      hourly: { type: 'boolean' },
      note: { type: ['string', 'null'] },
      tags: { type: 'array', items: { type: 'string' } },
      place: { $ref: '#/$defs/place' },
      optional: { type: 'string' },
    },
    $defs: {
      place: {
        type: 'object',
        additionalProperties: false,
        required: ['lat', 'kind'],
        properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, kind: { const: 'city' } },
      },
    },
  });
  t.same(value, {
    city: 'Weather in Paris?',
    unit: 'celsius',
    days: 3,
    hourly: true,
    note: 'Weather in Paris?',
    tags: ['Weather in Paris?'],
    place: { lat: 1, kind: 'city' },
  });
});

t.test('recursive schemas end', async (t) => {
  const tree = validSample(t, {
    $ref: '#/$defs/node',
    $defs: {
      node: {
        type: 'object',
        required: ['name', 'children'],
        properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } },
      },
    },
  });
  t.match(tree, { name: 'Weather in Paris?', children: [{ name: 'Weather in Paris?' }] });
  validSample(t, {
    type: 'object',
    required: ['value', 'next'],
    properties: { value: { type: 'integer' }, next: { anyOf: [{ $ref: '#' }, { type: 'null' }] } },
  });
});

t.test('string constraints: lengths in code points, formats, a pattern the property name meets', async (t) => {
  const value = validSample(
    t,
    {
      type: 'object',
      required: ['short', 'long', 'when', 'day', 'mail', 'id', 'link', 'city_name'],
      properties: {
        short: { type: 'string', maxLength: 2 },
        long: { type: 'string', minLength: 12 },
        when: { type: 'string', format: 'date-time' },
        day: { type: 'string', format: 'date' },
        mail: { type: 'string', format: 'email' },
        id: { type: 'string', format: 'uuid' },
        link: { type: 'string', format: 'uri' },
        city_name: { type: 'string', pattern: '^[a-z_]+$' },
      },
    },
    '😀 ok',
  ) as Record<string, string>;
  t.equal(value.short, '😀 ');
  t.equal(value.long, '😀 ok 😀 ok 😀 ');
  t.equal(value.city_name, 'city_name');
});

t.test('number bounds, exclusive bounds and multipleOf', async (t) => {
  const value = validSample(t, {
    type: 'object',
    required: ['a', 'b', 'c', 'd', 'e', 'f'],
    properties: {
      a: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      b: { type: 'integer', minimum: 10, multipleOf: 7 },
      c: { type: 'integer', maximum: -5 },
      d: { type: 'number', minimum: 1.1, multipleOf: 0.25 },
      e: { type: 'integer', exclusiveMinimum: 1 },
      f: { type: 'number', minimum: 0.2, maximum: 0.3 },
    },
  });
  t.same(value, { a: 0.5, b: 14, c: -5, d: 1.25, e: 2, f: 0.2 });
});

t.test('allOf, oneOf, minItems, minProperties and an empty text', async (t) => {
  const value = validSample(
    t,
    {
      allOf: [{ type: 'object', required: ['id'], properties: { id: { type: 'integer' } } }, { $ref: '#/$defs/named' }],
      $defs: { named: { required: ['name'], properties: { name: { type: 'string' } } } },
      oneOf: [{ required: ['pair'] }],
      properties: { pair: { type: 'array', minItems: 2, maxItems: 2, items: { type: 'boolean' } } },
    },
    '',
  );
  t.same(value, { id: 1, name: 'name', pair: [true, true] });
  t.same(validSample(t, { type: 'object', minProperties: 1, properties: { x: { type: 'null' } } }), { x: null });
});

t.test('draft 2020-12 tuples with prefixItems', async (t) => {
  const value = validSample(
    t,
    {
      type: 'array',
      prefixItems: [{ type: 'string' }, { type: 'integer' }],
      items: false,
    },
    'Hi',
    new Ajv2020({ strict: false }) as unknown as typeof ajv,
  );
  t.same(value, ['Hi', 1]);
});
