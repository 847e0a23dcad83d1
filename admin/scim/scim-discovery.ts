// The SCIM discovery documents (RFC 7643 §5–7): what this service provider supports, its one resource type (User) and
// a minimal User schema naming the attributes it keeps.
import { LIST_RESPONSE_SCHEMA, USER_SCHEMA } from './scim-user.ts';

const listOf = (resources: object[]) => ({
  schemas: [LIST_RESPONSE_SCHEMA],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});

export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: 1000 },
    changePassword: { supported: true },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'httpbasic',
        name: 'HTTP Basic',
        description: 'An organization API key: public key as user name, secret key as password',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function userResourceType(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A dashboard user of the organization',
    schema: USER_SCHEMA,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
  };
}

const attribute = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

export function userSchema(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
    id: USER_SCHEMA,
    name: 'User',
    description: 'User Account',
    attributes: [
      attribute('userName', 'string', { required: true, uniqueness: 'server' }),
      attribute('name', 'complex', {
        subAttributes: [
          attribute('formatted', 'string'),
          attribute('givenName', 'string'),
          attribute('familyName', 'string'),
        ],
      }),
      attribute('displayName', 'string'),
      attribute('emails', 'complex', {
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [attribute('value', 'string'), attribute('type', 'string'), attribute('primary', 'boolean')],
      }),
      attribute('active', 'boolean'),
      attribute('password', 'string', { mutability: 'writeOnly', returned: 'never' }),
      attribute('externalId', 'string', { caseExact: true }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` },
  };
}

export const resourceTypes = (base: string) => listOf([userResourceType(base)]);
export const schemas = (base: string) => listOf([userSchema(base)]);
