// Turns the policies of the config into checkers: built-in detectors compiled, services resolved by name.
import type { Dispatcher } from 'undici';
import { localDetector, runDetectors } from './detectors/local-detector.ts';
import { moderationService } from './detectors/moderation-service.ts';
import { presidioService } from './detectors/presidio-service.ts';
import type { Finding, LocalDetector, LocalDetectorSpec, RemoteDetector } from './detectors/types.ts';
import type { GuardrailsConfig, PolicyConfig } from './config.ts';

export interface Policy {
  readonly name: string;
  readonly mode: 'block' | 'flag';
  readonly blockedMessage: string;
  readonly failClosed: boolean;
  readonly timeoutMs: number;
  readonly checkPrompt: boolean;
  readonly checkResponse: boolean;
  readonly projects?: ReadonlySet<string>;
  readonly groups?: ReadonlySet<string>;
  /** The built-in detectors as plain data, for a worker thread. */
  readonly specs: readonly LocalDetectorSpec[];
  /** The built-in detectors, run in this thread. */
  scan(text: string): Finding[];
  readonly remote: readonly RemoteDetector[];
}

function remoteDetectors(
  config: Pick<GuardrailsConfig, 'services'>,
  dispatcher: Dispatcher,
): Map<string, RemoteDetector> {
  const out = new Map<string, RemoteDetector>();
  for (const [name, service] of Object.entries(config.services)) {
    out.set(
      name,
      service.type === 'presidio'
        ? presidioService(name, service, dispatcher)
        : moderationService(name, service, dispatcher),
    );
  }
  return out;
}

function compilePolicy(p: PolicyConfig, services: Map<string, RemoteDetector>): Policy {
  if (!p.check.prompt && !p.check.response)
    throw new Error('check.prompt and check.response are both false: the policy would check nothing');
  const specs: LocalDetectorSpec[] = [];
  const local: LocalDetector[] = [];
  const remote: RemoteDetector[] = [];
  for (const [i, d] of p.detectors.entries()) {
    try {
      if (d.type !== 'service') {
        local.push(localDetector(d));
        specs.push(d);
      } else {
        const service = services.get(d.service);
        if (!service) throw new Error(`service '${d.service}' is not defined under services`);
        remote.push(service);
      }
    } catch (err) {
      throw new Error(`detectors[${i}]: ${(err as Error).message}`);
    }
  }
  return {
    name: p.name,
    mode: p.mode,
    blockedMessage: p.blocked_message,
    failClosed: p.fail_closed,
    timeoutMs: p.timeout_ms,
    checkPrompt: p.check.prompt,
    checkResponse: p.check.response,
    projects: p.projects && new Set(p.projects),
    groups: p.model_groups && new Set(p.model_groups),
    specs,
    scan: (text) => runDetectors(local, text),
    remote,
  };
}

/** Every policy compiled; a throw names the policy and detector at fault and fails the config load. */
export function compilePolicies(
  config: Pick<GuardrailsConfig, 'services' | 'policies'>,
  dispatcher: Dispatcher,
): Policy[] {
  const services = remoteDetectors(config, dispatcher);
  const seen = new Set<string>();
  return config.policies.map((p, i) => {
    if (seen.has(p.name)) throw new Error(`policies[${i}].name: '${p.name}' is used by an earlier policy`);
    seen.add(p.name);
    try {
      return compilePolicy(p, services);
    } catch (err) {
      throw new Error(`policies[${i}] ('${p.name}'): ${(err as Error).message}`);
    }
  });
}

/** The policies that cover a request of this project and requested model group. */
export function policiesFor(
  policies: readonly Policy[],
  projectId: string | undefined,
  group: string | undefined,
): Policy[] {
  return policies.filter(
    (p) =>
      (!p.projects || (projectId !== undefined && p.projects.has(projectId))) &&
      (!p.groups || (group !== undefined && p.groups.has(group))),
  );
}
