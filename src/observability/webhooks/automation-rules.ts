// What an automation's action must hold, checked the same way for `svc automations create` and the dashboard: each
// surface names the field its own way (`--routing-key`, `action.routingKey`).
import type { AutomationAction, AutomationType } from '../../platform/store/repos/automations.ts';
import { checkUrl, SsrfError, type SsrfPolicy } from './ssrf.ts';

export interface AutomationSpec {
  type: AutomationType;
  url?: string;
  headers: Record<string, string>;
  routingKey?: string;
  actions: readonly AutomationAction[];
}

export type AutomationField = 'url' | 'routingKey' | 'headers' | 'actions';

/** A rule the automation's settings (its AutomationSpec) break: `reason` reads after the field's name. */
export class AutomationRuleError extends Error {
  readonly field: AutomationField;
  readonly reason: string;

  constructor(field: AutomationField, reason: string) {
    super(`${field} ${reason}`);
    this.field = field;
    this.reason = reason;
  }
}

/**
 * Throws AutomationRuleError for the first rule broken. With a policy the URL must also pass the SSRF rules that
 * delivery applies (scheme, and an address literal's range); host names are checked again at each delivery.
 */
export function checkAutomationSpec(spec: AutomationSpec, policy?: SsrfPolicy): void {
  if (spec.type === 'pagerduty') {
    if (!spec.routingKey) throw new AutomationRuleError('routingKey', 'is required for a pagerduty automation');
    if (spec.url)
      throw new AutomationRuleError(
        'url',
        'is not taken by a pagerduty automation (it posts to webhooks.pagerduty_url in gateway.yaml)',
      );
  } else {
    if (!spec.url) throw new AutomationRuleError('url', `is required for a ${spec.type} automation`);
    let url: URL;
    try {
      url = new URL(spec.url);
    } catch {
      throw new AutomationRuleError('url', `'${spec.url}' is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new AutomationRuleError('url', 'must be an http or https URL');
    if (policy) {
      try {
        checkUrl(url, policy);
      } catch (err) {
        if (err instanceof SsrfError) throw new AutomationRuleError('url', `is ${err.message}`);
        throw err;
      }
    }
    if (spec.routingKey) throw new AutomationRuleError('routingKey', 'is for pagerduty automations only');
  }
  if (spec.type !== 'webhook' && Object.keys(spec.headers).length > 0)
    throw new AutomationRuleError('headers', 'are for webhook automations only');
  if (spec.actions.length === 0)
    throw new AutomationRuleError('actions', 'needs at least one of created, updated, deleted');
}
