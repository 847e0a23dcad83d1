// A hash router: `#/p/default/traces?status=error` → path `/p/default/traces`, query `status=error`.

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function currentLocation(): Location {
  const raw = location.hash.replace(/^#/, '') || '/';
  const i = raw.indexOf('?');
  return i < 0
    ? { path: raw, query: new URLSearchParams() }
    : { path: raw.slice(0, i), query: new URLSearchParams(raw.slice(i + 1)) };
}

export function href(path: string, query: Record<string, string | undefined | null> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return `#${path}${s ? `?${s}` : ''}`;
}

export function navigate(path: string, query: Record<string, string | undefined | null> = {}): void {
  const next = href(path, query);
  if (location.hash === next) window.dispatchEvent(new HashChangeEvent('hashchange'));
  else location.hash = next;
}

/** Matches `/p/:project/traces/:id` against a path; the params are decoded. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    if (w.startsWith(':')) {
      if (got[i] === '') return null;
      try {
        params[w.slice(1)] = decodeURIComponent(got[i]!);
      } catch {
        return null;
      }
    } else if (w !== got[i]) return null;
  }
  return params;
}

export const seg = (s: string) => encodeURIComponent(s);
