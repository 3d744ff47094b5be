// What RunState writes and reads: `toString()` / `toJSON()` and back, checked with zod. Its interruptions are the
// contract's pending calls (contract/pendingCall.ts), read with the contract's own schema, so every field a run shows
// survives the round trip (a signed decision needs the call's fingerprint, for one).
import { z } from 'zod';
import { decisionSchema } from '../../contract/messages';
import { pendingApprovalSchema } from '../../contract/pendingCall';
import { describeZodError } from '../../contract/zodErrors';
import { RunStateError } from '../errors';

export const RUN_STATE_SCHEMA_VERSION = 1;

const stateSchema = z.object({
  $schemaVersion: z.literal(RUN_STATE_SCHEMA_VERSION),
  workflowId: z.string().min(1),
  agent: z.object({ name: z.string().min(1), version: z.string() }),
  /** The agent the run started with, when a handoff has moved the conversation since. */
  startedWith: z.string().min(1).optional(),
  interruptions: z.array(pendingApprovalSchema),
  decisions: z.array(decisionSchema),
  /** User messages to deliver with the decisions (addInput). */
  inputs: z.array(z.string().min(1)).default([]),
});
export type StateData = z.infer<typeof stateSchema>;

/** A state from what `toString()` (parsed) or `toJSON()` wrote; anything else is a RunStateError that says why. */
export function readStateData(raw: unknown, what: 'string' | 'object', writer: string): StateData {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new RunStateError(`RunState ${what} is not an object; pass the exact output of ${writer}`);
  const version = (raw as { $schemaVersion?: unknown }).$schemaVersion;
  if (version === undefined)
    throw new RunStateError(`RunState ${what} has no $schemaVersion; it was not written by RunState (${writer})`);
  if (version !== RUN_STATE_SCHEMA_VERSION)
    throw new RunStateError(
      `RunState $schemaVersion ${JSON.stringify(version)} is not supported (this library reads version ${RUN_STATE_SCHEMA_VERSION}); upgrade countersign`,
    );
  const parsed = stateSchema.safeParse(raw);
  if (!parsed.success) throw new RunStateError(`RunState ${what} is corrupt: ${describeZodError(parsed.error)}`);
  return parsed.data; // zod returns copies: the caller's object is never changed
}
