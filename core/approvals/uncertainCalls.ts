// Calls of tools that are not idempotent and may or may not have run: their one attempt died or timed out after it
// started, so running them again could do the deed twice. Such a call waits for a person again, as `uncertain`,
// who answers: run it again (`retry`), it ran (`done`, with the result the model gets), or it did not (`failed`, with
// the error). Pure: the approval book applies these; the workflow decides when a call is uncertain.
import type { BookCall, BookState } from './approvalBook';
import { appendEntry } from './auditLog';
import { type CallContext, contextFields } from './callContext';

/** The book entry of a call that may or may not have run: pending again, with no expiry, quorum or signature to wait for. */
export function uncertainEntry(
  call: { callId: string; toolName: string; arguments: string } & CallContext,
  agentName: string,
  because: string,
  now: string,
  was?: BookCall,
): BookCall {
  return {
    callId: call.callId,
    kind: 'uncertain',
    toolName: call.toolName,
    arguments: call.arguments,
    agentName: was?.agentName ?? agentName,
    requestedAt: now,
    state: 'pending',
    uncertainBecause: because.slice(0, 500),
    rejectionText: `The call of ${call.toolName} was stopped by a person; it may or may not have run.`,
    // Who may answer, and what a retry runs, are the call's as it was approved.
    ...(was?.approvers ? { approvers: was.approvers } : {}),
    ...(was?.mcpServer ? { mcpServer: was.mcpServer } : {}),
    ...(was?.editedArguments ? { editedArguments: was.editedArguments } : {}),
    ...contextFields({ ...call, ...(was ? contextFields(was) : {}) }),
  };
}

/** The call waits for a person again as `uncertain` (replacing its book entry, if it had one), audited `uncertain`. */
export function markUncertain(
  book: BookState,
  call: Pick<BookCall, 'callId' | 'toolName' | 'arguments' | 'request' | 'assistantSaid'>,
  agentName: string,
  because: string,
  now: string,
): BookCall {
  const i = book.calls.findIndex((c) => c.callId === call.callId);
  const entry = uncertainEntry(call, agentName, because, now, i >= 0 ? book.calls[i] : undefined);
  if (i >= 0) book.calls[i] = entry;
  else book.calls.push(entry);
  appendEntry(book, {
    callId: entry.callId,
    toolName: entry.toolName,
    arguments: entry.arguments,
    agentName: entry.agentName,
    decision: 'uncertain',
    reason: entry.uncertainBecause,
    requestedAt: now,
    decidedAt: now,
    via: 'run',
  });
  return entry;
}

/** What the model gets when a person says the call ran (its result) or failed (the error). */
export function uncertainOutput(
  call: Pick<BookCall, 'toolName'>,
  answer: 'done' | 'failed',
  d: { result?: unknown; error?: string },
): string {
  if (answer === 'failed') return `The tool ${call.toolName} failed: ${d.error ?? 'no reason given'}`;
  return typeof d.result === 'string' ? d.result : JSON.stringify(d.result ?? null);
}
