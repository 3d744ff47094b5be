// Which agents a worker serves, said where a client can read it without a run: the identity the worker polls its
// task queue with, which Temporal lists for each poller (DescribeTaskQueue). The worker appends the agents' names to
// Temporal's default identity (pid@host); a client starting a run refuses an agent none of the queue's workers serves,
// before the run exists (client/run/servedAgents.ts). A worker with an identity of its own, or too many agents to
// fit, says nothing, and then nothing is refused: the run fails and names the worker's agents, as it did before.

const MARK = ' countersign-agents=';
/** Identities travel with every poll and every task's history event: past this, the worker does not advertise. */
const MAX_IDENTITY = 400;

/** `base` with the agents appended, or `base` alone when they would make it longer than MAX_IDENTITY. */
export function identityServing(base: string, agents: readonly string[]): string {
  const served = `${base}${MARK}${agents.map(encodeURIComponent).join(',')}`;
  return served.length <= MAX_IDENTITY ? served : base;
}

/** The agents a poller's identity says its worker serves; undefined when it does not say (another worker, a custom identity). */
export function agentsServedBy(identity: string): string[] | undefined {
  const at = identity.lastIndexOf(MARK);
  if (at < 0) return undefined;
  const list = identity.slice(at + MARK.length);
  try {
    return list ? list.split(',').map(decodeURIComponent) : [];
  } catch {
    return undefined; // not ours after all: a malformed escape
  }
}
