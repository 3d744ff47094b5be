// How the inbox answers an error a route did not answer itself. A refusal meant for the person keeps its words (a
// stale form, a body too large, fastify's word on a malformed request, the client library's one-line
// CountersignError); a run that is not the inbox's is 404 with the unknown run's words (runScope.ts); anything else is
// internal: the client gets one generic line with the request id, and the details go to the server's log under the
// same id (fastify's request id and its logger).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CountersignError, NoWorkerError, RunNotFoundError } from '../../client/errors';
import { internalErrorMessage } from '../internalErrors';
import { messagePage } from './pages';

const CSRF_CODES = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

/** The status and the words a client gets for `err` (logged first when it is internal). */
function clientAnswer(err: FastifyError, req: FastifyRequest): { status: number; title: string; message: string } {
  if (err instanceof RunNotFoundError) return { status: 404, title: 'No such run', message: err.message };
  // Nothing is wrong with the inbox or the request: the run's queue has no worker now (client/run/workerPresence.ts).
  if (err instanceof NoWorkerError) return { status: 503, title: 'No worker', message: err.message };
  const status = err.statusCode ?? 500;
  if (CSRF_CODES.has(err.code))
    return {
      status,
      title: 'Refused',
      message: 'the form is stale or did not come from this site (CSRF check failed): reload the page and try again',
    };
  if (status === 413) return { status, title: 'Error', message: 'the request is too large' };
  // A body of a type no parser takes (a multipart form, say): fastify's "Unsupported Media Type" says not what to send.
  if (status === 415 && answersJson(req.url))
    return { status, title: 'Error', message: `the body is ${contentType(req)}: send it as application/json` };
  if (status < 500 || err instanceof CountersignError)
    return { status, title: status === 403 ? 'Refused' : 'Error', message: err.message };
  req.log.error({ err }, 'internal error');
  return { status, title: 'Error', message: internalErrorMessage(req.id) };
}

const contentType = (req: FastifyRequest) =>
  String(req.headers['content-type'] ?? 'untyped')
    .split(';')[0]!
    .trim();

/** Paths whose clients are programs (the JSON API, AG-UI front ends): errors as `{ error }`, not an HTML page. */
export const answersJson = (url: string): boolean => url.startsWith('/api/') || url.startsWith('/ag-ui/');

export function replyToErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const { status, title, message } = clientAnswer(err, req);
    // The rest of an oversized body is never read: close the connection rather than leave the client uploading.
    if (status === 413) reply.header('connection', 'close');
    if (answersJson(req.url)) return reply.code(status).send({ error: message });
    return reply
      .code(status)
      .type('text/html')
      .send(messagePage(title, message, req.identity?.approver));
  });
}
