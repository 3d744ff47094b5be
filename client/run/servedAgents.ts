// An agent name no worker serves is refused before a run exists, where the queue's workers say which agents they serve
// (their poll identities: contract/workerIdentity.ts). Where that cannot be known (no recent poller, a worker with an
// identity of its own, a server that will not describe the queue), the run starts, and fails naming the agents the
// worker that took it has.
import type { Client } from '@temporalio/client';
import { agentsServedBy } from '../../contract/workerIdentity';
import { Failure } from '../../contract/failureTypes';
import { CountersignError } from '../errors';
import { RECENT_POLL_MS, recentPollers } from './workerPresence';

/** The agents the workers that polled `taskQueue` lately serve, or undefined when any of them does not say. */
export async function servedAgents(client: Client, taskQueue: string, now = Date.now()): Promise<string[] | undefined> {
  const recent = await recentPollers(client, taskQueue, now - RECENT_POLL_MS);
  if (!recent?.length) return undefined;
  const served = new Set<string>();
  for (const p of recent) {
    const agents = agentsServedBy(p.identity ?? '');
    if (!agents) return undefined;
    for (const a of agents) served.add(a);
  }
  return [...served].sort();
}

/** The refusal of an agent no worker on the queue serves (agents: what they serve), in one line. */
export const unknownAgentLine = (agent: string, taskQueue: string, agents: readonly string[]): string =>
  `no agent named "${agent}" on task queue "${taskQueue}" (its workers serve ${agents.length ? agents.join(', ') : 'none'}): check the name, or start a worker that serves it`;

/**
 * How long a start waits for a worker that serves its agent to show before refusing: a worker started a moment ago
 * (a deploy that adds an agent) is listed only once its first poll reaches the server.
 */
export const NEW_WORKER_GRACE_MS = 3_000;
const LOOK_AGAIN_MS = 250;

/** Throws (type AgentUnavailable, as the run's failure would be), before anything is started, when the queue's workers are known and none of them serves `agent`. */
export async function refuseUnservedAgent(client: Client, taskQueue: string, agent: string): Promise<void> {
  const until = Date.now() + NEW_WORKER_GRACE_MS;
  for (;;) {
    const agents = await servedAgents(client, taskQueue);
    if (!agents || agents.includes(agent)) return;
    if (Date.now() >= until)
      throw new CountersignError(unknownAgentLine(agent, taskQueue, agents), Failure.AgentUnavailable);
    await new Promise((resolve) => setTimeout(resolve, LOOK_AGAIN_MS));
  }
}
