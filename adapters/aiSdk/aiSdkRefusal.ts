// What cannot map is refused when fromAiSdkTools is called, in one line naming the tool and the field, so a team
// learns it at startup, not when a run reaches the tool.
import { type Refuse, refuser } from '../shared/sdkRefusal';

/** Thrown for an AI SDK tool (or a toolApproval entry) that Countersign cannot run as written. */
export class UnmappableToolError extends Error {
  override name = 'UnmappableToolError';
}

/** `fromAiSdkTools: tool "<tool>": <field> <why and what to do>`. */
export const refuse: Refuse = refuser(UnmappableToolError, 'fromAiSdkTools', 'tool');
