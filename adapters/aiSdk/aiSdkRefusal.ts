// What cannot map is refused when fromAiSdkTools is called, in one line naming the tool and the field, so a team
// learns it at startup, not when a run reaches the tool.

/** Thrown for an AI SDK tool (or a toolApproval entry) that Countersign cannot run as written. */
export class UnmappableToolError extends Error {
  override name = 'UnmappableToolError';
}

/** `fromAiSdkTools: tool "<tool>": <field> <why and what to do>`. */
export function refuse(tool: string, field: string, why: string): never {
  throw new UnmappableToolError(`fromAiSdkTools: tool "${tool}": ${field ? `${field} ` : ''}${why}`);
}
