// The one SCIM filter identity providers send before creating a user: `userName eq "alice@example.com"` (RFC 7644
// §3.4.2.2; attribute and operator in any case). Anything else is 400 invalidFilter.
import { ScimError } from './scim-error.ts';

const USER_NAME_EQ = /^\s*userName\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$/i;

/** The userName the filter asks for; undefined when there is no filter. */
export function userNameFilter(filter: string | undefined): string | undefined {
  if (filter === undefined || filter.trim() === '') return undefined;
  const m = USER_NAME_EQ.exec(filter);
  if (!m)
    throw new ScimError(
      400,
      `Unsupported filter ${JSON.stringify(filter)}: only userName eq "<value>" is supported`,
      'invalidFilter',
    );
  return m[1].replace(/\\(.)/g, '$1');
}
