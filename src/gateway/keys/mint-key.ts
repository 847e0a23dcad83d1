// Minting a short-lived gateway key bound to one agent (docs/public-api.md, key minting). Free of HTTP so the public
// API, the dashboard and the CLI share it: the request is checked here, the key stored as its SHA-256 with an audit row
// in the same transaction, and the plaintext exists only in the returned value.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ErrorObject } from 'ajv';
import schema from '../../../schemas/api/mint-gateway-key.json' with { type: 'json' };
import type { Database } from '../../platform/store/database.ts';
import { getAgent } from '../../platform/store/repos/agents.ts';
import { writeAudit } from '../../platform/store/repos/audit-log.ts';
import { AliasTakenError, insertGatewayKey, type StoredGatewayKey } from '../../platform/store/repos/gateway-keys.ts';
import type { Project } from '../../platform/store/repos/projects.ts';
import { generateKey } from './key-store.ts';
import { parseNetworks } from '../../platform/networks.ts';
import { createAjv } from '../../platform/validation/ajv.ts';
import { describeAjvError, ISSUE_WORDING, mustBeType, type Wording } from '../../platform/validation/ajv-errors.ts';
import { hashKey } from '../../plugin-api/services.ts';

export interface MintKeyRequest {
  agentId: string;
  modelGroups: string[];
  expiresInHours: number;
  alias?: string;
  budgetUsd?: number;
  rpm?: number;
  tpm?: number;
  allowedNetworks?: string[];
}

/** The minted key: `key` is the plaintext, never stored and never available again. */
export interface MintedKey {
  id: string;
  key: string;
  alias: string;
  agentId: string;
  modelGroups: string[];
  expiresAt: string;
  stored: StoredGatewayKey;
}

/** The minted key as every minting door answers it (docs/public-api.md, key minting): all but the stored row. */
export const mintedKeyAnswer = ({ stored: _stored, ...answer }: MintedKey) => answer;

/** A request the rules refuse; `field` is the request field at fault, `conflict` when the alias is taken. */
export class MintKeyError extends Error {
  readonly field: string;
  readonly reason: string;
  readonly conflict: boolean;

  constructor(field: string, reason: string, conflict = false) {
    super(`${field}: ${reason}`);
    this.field = field;
    this.reason = reason;
    this.conflict = conflict;
  }
}

const validate = createAjv().compile<MintKeyRequest>(schema);

/** The words a minting caller reads: what each field must be, and the rules behind minItems and the alias pattern. */
const MINT_WORDING: Wording = {
  ...ISSUE_WORDING,
  type: mustBeType,
  minItems: (_p, err) =>
    err.instancePath === '/allowedNetworks'
      ? 'must not be empty (omit it to allow any network)'
      : 'must list at least one model group',
  minLength: () => 'must not be empty',
  uniqueItems: (p) => `must not list the same value twice (items ${p.j} and ${p.i})`,
  pattern: () => 'must be 1 to 64 characters, each a letter, a digit or one of . _ : -',
};

/** The field at fault (`item N` of it for a list's value) and why. */
function reasonOf(err: ErrorObject): MintKeyError {
  const {
    path: [field, item],
    message,
  } = describeAjvError(err, MINT_WORDING);
  return new MintKeyError(
    field === undefined ? 'body' : String(field),
    item === undefined ? message : `item ${item} ${message}`,
  );
}

/** The request as typed values, or a MintKeyError naming the first field at fault. */
export function parseMintKeyRequest(body: unknown): MintKeyRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new MintKeyError('body', 'must be a JSON object');
  if (!validate(body)) throw reasonOf(validate.errors![0]);
  if (body.allowedNetworks) {
    try {
      parseNetworks(body.allowedNetworks);
    } catch (err) {
      throw new MintKeyError('allowedNetworks', (err as Error).message);
    }
  }
  return body;
}

export interface MintKeyDeps {
  db: Database;
  /** Epoch ms; the key expires `expiresInHours` after it. */
  now: number;
  /** Whether the configuration currently serving has this model group. */
  modelGroupExists(name: string): boolean;
}

export interface MintKeyInput {
  project: Pick<Project, 'id' | 'organizationId' | 'maxKeyExpiryHours'>;
  request: MintKeyRequest;
  /** Audit actor: `api-key:<id>`, `cli`, `dashboard:<user>`. */
  actor: string;
  source?: StoredGatewayKey['source'];
}

const ALIAS_ATTEMPTS = 5;

/** `<agent name>-<8 hex>`, the name reduced to the characters an alias may hold. */
function generatedAlias(agentName: string): string {
  const base =
    agentName
      .replace(/[^A-Za-z0-9._:-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 55) || 'key';
  return `${base}-${randomBytes(4).toString('hex')}`;
}

/**
 * Checks, in order: the agent (of this project, not suspended), the model groups (known now), the lifetime (at most
 * the project's maximum), then stores the key and its audit row in one transaction; a taken alias is a conflict.
 */
export async function mintGatewayKey(deps: MintKeyDeps, input: MintKeyInput): Promise<MintedKey> {
  const { project, request } = input;
  const agent = await getAgent(deps.db, project.id, request.agentId);
  if (!agent) throw new MintKeyError('agentId', `no agent '${request.agentId}' in project '${project.id}'`);
  if (agent.status === 'suspended') throw new MintKeyError('agentId', `agent '${request.agentId}' is suspended`);
  const unknown = request.modelGroups.find((g) => !deps.modelGroupExists(g));
  if (unknown !== undefined) throw new MintKeyError('modelGroups', `unknown model group '${unknown}'`);
  if (request.expiresInHours > project.maxKeyExpiryHours) {
    throw new MintKeyError(
      'expiresInHours',
      `must be at most ${project.maxKeyExpiryHours} (the project's maximum key expiry, in hours)`,
    );
  }

  const key = generateKey();
  const expiresAt = new Date(deps.now + Math.round(request.expiresInHours * 3_600_000)).toISOString();
  return deps.db.transaction(async (tx) => {
    let stored: StoredGatewayKey | undefined;
    for (let attempt = 1; stored === undefined; attempt++) {
      const alias = request.alias ?? generatedAlias(agent.name);
      try {
        stored = await insertGatewayKey(tx, {
          id: randomUUID(),
          projectId: project.id,
          agentId: agent.id,
          alias,
          keySha256: hashKey(key).toString('hex'),
          modelGroups: request.modelGroups,
          expiresAt,
          allowedNetworks: request.allowedNetworks,
          rpm: request.rpm,
          tpm: request.tpm,
          budgetUsd: request.budgetUsd,
          source: input.source ?? 'minted',
        });
      } catch (err) {
        if (!(err instanceof AliasTakenError)) throw err;
        if (request.alias !== undefined)
          throw new MintKeyError('alias', `'${alias}' is already used in project '${project.id}'`, true);
        if (attempt === ALIAS_ATTEMPTS) throw err;
      }
    }
    await writeAudit(tx, {
      organizationId: project.organizationId,
      projectId: project.id,
      actor: input.actor,
      action: 'gateway_key.mint',
      resourceType: 'gateway_key',
      resourceId: stored.id,
      details: {
        alias: stored.alias,
        agentId: agent.id,
        modelGroups: stored.modelGroups,
        expiresAt,
        source: stored.source,
        ...(request.budgetUsd !== undefined ? { budgetUsd: request.budgetUsd } : {}),
        ...(request.rpm !== undefined ? { rpm: request.rpm } : {}),
        ...(request.tpm !== undefined ? { tpm: request.tpm } : {}),
        ...(request.allowedNetworks !== undefined ? { allowedNetworks: request.allowedNetworks } : {}),
      },
    });
    return {
      id: stored.id,
      key,
      alias: stored.alias,
      agentId: agent.id,
      modelGroups: stored.modelGroups,
      expiresAt,
      stored,
    };
  });
}
