// The service's HTTP endpoint: POST /refund-requests starts a run (202 with its workflow id);
// GET /refund-requests/<id> says where it stands (waiting for a person, completed, failed).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Runner, RunNotFoundError } from 'countersign/client';

const runner = await Runner.connect({ taskQueue: process.env.COUNTERSIGN_TASK_QUEUE ?? 'refund-desk' });

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return JSON.parse(text || '{}') as Record<string, unknown>;
}

async function handle(req: IncomingMessage, res: ServerResponse) {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (req.method === 'POST' && path === '/refund-requests') {
    const { message, customer } = await readJson(req);
    if (typeof message !== 'string' || !message)
      return send(res, 400, { error: 'give "message": the customer\'s request' });
    const workflowId = await runner.startOnly('refund-desk', message, {
      context: { customer: String(customer ?? 'unknown') },
      approvalTimeout: '3d',
    });
    return send(res, 202, { workflowId });
  }
  const match = /^\/refund-requests\/([^/]+)$/.exec(path);
  if (req.method === 'GET' && match) {
    const run = await runner.describe(decodeURIComponent(match[1]!));
    return send(res, 200, {
      status: run.status,
      pending: run.pending.map((p) => ({ callId: p.callId, tool: p.toolName, arguments: p.arguments })),
      finalOutput: run.finalOutput,
      error: run.error,
    });
  }
  send(res, 404, { error: `no route ${req.method} ${path}` });
}

const server = createServer((req, res) => {
  handle(req, res).catch((err: Error) =>
    send(res, err instanceof RunNotFoundError ? 404 : 500, { error: err.message }),
  );
});
server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () =>
  console.log(`refund-desk listening on http://127.0.0.1:${(server.address() as { port: number }).port}`),
);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => server.close(() => void runner.close()));
