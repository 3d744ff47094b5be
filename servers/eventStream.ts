// A response taken over as a stream of server-sent events (the inbox's live run page, AG-UI's runs): the headers
// every such stream sends, and a signal that aborts when the client goes away, so the reading behind it stops.
import type { FastifyReply, FastifyRequest } from 'fastify';

export function openEventStream(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const abort = new AbortController();
  req.raw.on('close', () => abort.abort());
  reply.hijack();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  return abort.signal;
}
