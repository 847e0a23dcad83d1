// Prefix affinity for provider prompt caching: requests with the same stable prefix go to the same deployment, by
// consistent hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam, "Consistent Hashing with Bounded Loads",
// 2018). A prefix's home is the first deployment clockwise from its hash on a ring of virtual nodes; a home that is
// not a candidate (benched, unavailable, tried already) or is over its load bound passes the request on clockwise, so
// one hot prefix cannot overload a deployment and every other prefix keeps its home.
import { createHash } from 'node:crypto';
import type { DeploymentConfig, JsonObject, ModelGroupConfig } from '../../src/plugin-api/index.ts';
import type { DeploymentFigures } from './routing-board.ts';

/** A deployment may carry up to this factor of its weighted share of the group's requests in flight (c in the paper). */
const LOAD_BOUND = 1.25;
/** Virtual nodes of the heaviest deployment on the ring; lighter ones get fewer, in proportion to their weight. */
const VIRTUAL_NODES = 64;

export type AffinityReason = 'affinity_home' | 'affinity_home_busy' | 'affinity_home_unavailable';

interface Ring {
  points: Uint32Array;
  /** The deployment of each point. */
  owners: string[];
}

const hash32 = (text: string) => createHash('sha1').update(text).digest().readUInt32BE(0);

// Group configs are replaced whole on reload, so a ring can be kept per config object.
const rings = new WeakMap<ModelGroupConfig, Ring>();

function ringOf(group: ModelGroupConfig): Ring {
  let ring = rings.get(group);
  if (ring) return ring;
  const maxWeight = Math.max(...group.deployments.map((d) => d.weight));
  const nodes: { point: number; owner: string }[] = [];
  for (const d of group.deployments) {
    if (d.weight <= 0) continue;
    const count = Math.max(1, Math.round((VIRTUAL_NODES * d.weight) / maxWeight));
    for (let i = 0; i < count; i++) nodes.push({ point: hash32(`${d.id}#${i}`), owner: d.id });
  }
  nodes.sort((a, b) => a.point - b.point);
  ring = { points: Uint32Array.from(nodes, (n) => n.point), owners: nodes.map((n) => n.owner) };
  rings.set(group, ring);
  return ring;
}

/**
 * Characters of a prefix that are hashed (with the length of each part): SHA-1 costs about 2 µs per KB here, and a
 * pasted document can be hundreds of KB. Prefixes alike in their first 16 K characters and part lengths share a
 * deployment, which costs nothing but balance.
 */
const HASHED_CHARS = 16_384;

/**
 * The hash of a chat request's stable prefix: its tools, its leading system and developer messages and the first
 * message after them. Turns of one conversation share it, so they reach the deployment whose cache holds their
 * start; undefined for a request without messages (embeddings).
 */
export function prefixHash(body: JsonObject | undefined): number | undefined {
  const messages = body?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  const h = createHash('sha1');
  let budget = HASHED_CHARS;
  const add = (text: string) => {
    h.update(`\u0000${text.length}\u0000`);
    if (budget > 0) h.update(text.length <= budget ? text : text.slice(0, budget));
    budget -= text.length;
  };
  if (body!.tools !== undefined) add(JSON.stringify(body!.tools));
  for (const m of messages as JsonObject[]) {
    const content = m?.content;
    add(String(m?.role));
    add(typeof content === 'string' ? content : JSON.stringify(content ?? null));
    if (m?.role !== 'system' && m?.role !== 'developer') break;
  }
  return h.digest().readUInt32BE(0);
}

/**
 * The prefix's deployment among the candidates: the first one clockwise from the hash whose requests in flight stay
 * within LOAD_BOUND times its weighted share of the candidates' total (this request included).
 */
export function affinityChoice(
  group: ModelGroupConfig,
  candidates: readonly DeploymentConfig[],
  hash: number,
  inFlight: DeploymentFigures,
): { d: DeploymentConfig; reason: AffinityReason } {
  const ring = ringOf(group);
  let totalLoad = 1;
  let totalWeight = 0;
  for (const d of candidates) {
    totalLoad += inFlight.get(d.id) ?? 0;
    totalWeight += d.weight;
  }
  const byId = new Map(candidates.map((d) => [d.id, d]));
  // The first point at or after the hash (binary search), wrapping around.
  let lo = 0;
  let hi = ring.points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ring.points[mid] < hash) lo = mid + 1;
    else hi = mid;
  }
  const home = ring.owners[lo % ring.points.length];
  const passedOn = byId.has(home) ? 'affinity_home_busy' : 'affinity_home_unavailable';
  const seen = new Set<string>();
  for (let i = 0; i < ring.points.length && seen.size < byId.size; i++) {
    const owner = ring.owners[(lo + i) % ring.points.length];
    const d = byId.get(owner);
    if (!d || seen.has(owner)) continue;
    seen.add(owner);
    const capacity = Math.ceil((LOAD_BOUND * totalLoad * d.weight) / totalWeight);
    if ((inFlight.get(owner) ?? 0) + 1 <= capacity) return { d, reason: owner === home ? 'affinity_home' : passedOn };
  }
  // Not reached: with LOAD_BOUND > 1 the capacities add up to more than the requests in flight.
  return { d: candidates[0], reason: passedOn };
}
