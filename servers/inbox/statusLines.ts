// After a decision or a review the browser goes back to `/?done=…` or `/reviews?done=…` with a line saying what
// happened. The line is the inbox's own: it travels signed with the server's cookie secret (@fastify/cookie's
// signCookie), so a URL made anywhere else (`/?done=Your session expired: sign in at …`) shows nothing at all.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The path with the inbox's status line, signed. */
export const withStatusLine = (reply: FastifyReply, path: string, line: string): string =>
  `${path}?done=${encodeURIComponent(reply.signCookie(line))}`;

/** The status line a `done` query value carries, when this server signed it; otherwise nothing. */
export function statusLineOf(req: FastifyRequest, done: unknown): string | undefined {
  if (typeof done !== 'string') return undefined;
  const read = req.unsignCookie(done);
  return read.valid && read.value ? read.value : undefined;
}
