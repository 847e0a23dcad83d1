export interface ConfigIssue {
  /** YAML path such as `plugins[3].config.rpm`; empty for the document root. */
  path: string;
  message: string;
  /** 1-based line in the YAML file, when known. */
  line?: number;
}

export function formatIssue(issue: ConfigIssue): string {
  const where = issue.path === '' ? '(root)' : issue.path;
  return `${where}${issue.line === undefined ? '' : ` (line ${issue.line})`}: ${issue.message}`;
}

/** A configuration that cannot go live; carries every problem found, each with its YAML path. */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[], source?: string) {
    super(
      `${source ? `${source}: ` : ''}invalid configuration\n${issues.map((i) => `  ${formatIssue(i)}`).join('\n')}`,
    );
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

/** `['plugins', 3, 'config', 'rpm']` → `plugins[3].config.rpm`. */
export function yamlPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number' || /^\d+$/.test(seg)) out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
