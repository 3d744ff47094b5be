// The one place a run tells the world what changed (publisher.ts): where the SDK checks the run's conditions. It
// does so after each job of an activation and then, each time the run's code has run as far as it can, until none
// unblocks; the last check of an activation sees the activation's final state, and what it issues (upserts, the
// parent's report, notifications) joins that activation's commands. Not an interceptor: the SDK's
// concludeActivation hook runs after the commands are collected, so commands issued there would land in the next
// activation. No timer, no promise resolved, no extra entry into the workflow sandbox: one boolean read per check.
import { condition } from '@temporalio/workflow';

/**
 * From now on, `flush` runs at each condition check of the run that finds `changed()` true. The condition never
 * unblocks; a cancelled run's root scope drops it (the run then settles what it publishes itself, agentRun.ts).
 * Three promises for the run's life: no scope of its own.
 */
export function flushAtEachCheck(changed: () => boolean, flush: () => void): void {
  condition(() => {
    if (changed()) flush();
    return false;
  }).catch(() => undefined);
}
