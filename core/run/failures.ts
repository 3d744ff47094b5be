// What actually went wrong, under Temporal's wrapping (ActivityFailure → ApplicationFailure, WorkflowFailedError →
// …): the innermost failure's message and type. Pure; used by the workflow and the client alike.
import { ApplicationFailure } from '@temporalio/common';

export function rootCause(err: unknown): { message: string; type?: string } {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  if (e instanceof ApplicationFailure) return { message: e.message, type: e.type ?? undefined };
  return { message: e instanceof Error ? e.message : String(e) };
}
