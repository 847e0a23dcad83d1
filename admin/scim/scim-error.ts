// SCIM errors (RFC 7644 §3.12): `{schemas: [Error], status, detail, scimType?}` as application/scim+json.

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

export type ScimType = 'invalidFilter' | 'invalidSyntax' | 'invalidPath' | 'invalidValue' | 'uniqueness' | 'mutability';

export class ScimError extends Error {
  readonly status: number;
  readonly scimType?: ScimType;

  constructor(status: number, detail: string, scimType?: ScimType) {
    super(detail);
    this.status = status;
    this.scimType = scimType;
  }

  body() {
    return {
      schemas: [SCIM_ERROR_SCHEMA],
      status: String(this.status),
      detail: this.message,
      ...(this.scimType ? { scimType: this.scimType } : {}),
    };
  }
}

export const invalidValue = (detail: string) => new ScimError(400, detail, 'invalidValue');
