// What the project's HTTP services (the approvals inbox, the codec server) tell a client about an error it did not
// cause: one generic line with a request id. The details (the error's message and stack, Temporal's words, file
// paths) go to the server's log only, as one JSON line under the same id, so an operator finds them from the id a
// user reports. Refusals meant for the user (a decision refused, a bad filter, a body too large) keep their words.
import { randomBytes } from 'node:crypto';

/** A fresh request id: 12 hex characters, unguessable and short enough to read out. */
export const newRequestId = (): string => randomBytes(6).toString('hex');

/** The only words a client gets for an internal error. */
export const internalErrorMessage = (requestId: string): string => `internal error (request ${requestId})`;

/** Where a server writes its log lines (stderr by default; a test passes its own). */
export interface LogStream {
  write(line: string): unknown;
}

/** The error as a log line, in the shape the inbox's logger (pino, through fastify) writes: level 50 is error. */
export function errorLogLine(requestId: string, msg: string, err: unknown): string {
  const e =
    err instanceof Error
      ? { type: err.name, message: err.message, stack: err.stack }
      : { type: typeof err, message: String(err) };
  return `${JSON.stringify({ level: 50, time: Date.now(), reqId: requestId, err: e, msg })}\n`;
}
