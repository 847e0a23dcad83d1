// A SCIM PatchOp (RFC 7644 §3.5.2) on a User, as the fields it changes. Both forms identity providers send work:
// `{op: "replace", path: "active", value: false}` and Okta's / Azure AD's `{op: "replace", value: {active: false}}`;
// op names in any case. Attributes svc does not keep (title, addresses, …) are ignored, so provisioning does not fail.
import { ScimError } from './scim-error.ts';
import { PATCH_OP_SCHEMA, scimBoolean, scimEmail, scimName, type ScimUserFields } from './scim-user.ts';

interface Operation {
  op: string;
  path?: string;
  value?: unknown;
}

const invalidSyntax = (detail: string) => new ScimError(400, detail, 'invalidSyntax');

/** Applies one attribute (a path, or a key of a path-less value) to `fields`. */
function setAttribute(
  fields: ScimUserFields,
  path: string,
  value: unknown,
  names: { given?: string; family?: string },
): void {
  switch (path.toLowerCase()) {
    case 'active':
      fields.active = scimBoolean(value, 'active');
      return;
    case 'username':
      fields.email = scimEmail(value);
      return;
    case 'displayname':
    case 'name.formatted':
      if (typeof value === 'string') fields.name = value;
      return;
    case 'name':
      fields.name = scimName(value) ?? fields.name;
      return;
    case 'name.givenname':
      if (typeof value === 'string') names.given = value;
      return;
    case 'name.familyname':
      if (typeof value === 'string') names.family = value;
      return;
    case 'externalid':
      if (typeof value === 'string') fields.externalId = value;
      return;
    case 'password':
      if (typeof value !== 'string') throw new ScimError(400, 'password must be a string', 'invalidValue');
      fields.password = value;
      return;
  }
}

export function patchFields(body: unknown): ScimUserFields {
  const b = body as { schemas?: unknown; Operations?: unknown } | null;
  if (!b || typeof b !== 'object' || !Array.isArray(b.Operations))
    throw invalidSyntax('A PatchOp body needs an Operations array');
  if (Array.isArray(b.schemas) && !b.schemas.includes(PATCH_OP_SCHEMA))
    throw invalidSyntax(`A PatchOp body's schemas must include ${PATCH_OP_SCHEMA}`);
  const fields: ScimUserFields = {};
  const names: { given?: string; family?: string } = {};
  for (const raw of b.Operations as unknown[]) {
    const op = raw as Operation | null;
    const kind = typeof op?.op === 'string' ? op.op.toLowerCase() : undefined;
    if (kind !== 'add' && kind !== 'replace' && kind !== 'remove')
      throw invalidSyntax(`Unsupported PatchOp operation ${JSON.stringify(op?.op)}`);
    // `remove` of an attribute svc keeps would leave a required value empty; only externalId may go.
    if (kind === 'remove') {
      if (op!.path?.toLowerCase() === 'externalid') fields.externalId = '';
      continue;
    }
    if (op!.path !== undefined) setAttribute(fields, op!.path, op!.value, names);
    else if (op!.value && typeof op!.value === 'object')
      for (const [k, v] of Object.entries(op!.value)) setAttribute(fields, k, v, names);
    else throw invalidSyntax('A PatchOp operation without a path needs an object value');
  }
  if (names.given !== undefined || names.family !== undefined)
    fields.name ??= [names.given, names.family].filter((n) => n).join(' ');
  return fields;
}
