// A loopback OpenAI-compatible model server for tests and offline demos. It speaks POST /v1/chat/completions and
// POST /v1/responses, as JSON or as SSE streams, so the real `openai` client talks to it unchanged.
// Each request is answered by the next queued script step for its run (header X-Countersign-Run-Id, sent by
// the model activity), else the next step of the shared queue, else the deterministic demo brain.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RUN_ID_HEADER } from '../activities/model/modelTurn';
import { toolSpecs } from './anyAgentBrain';
import { type BrainItem, demoReply } from './demoBrain';
import { type SentChunk, answerChat, answerResponses, sendJson } from './modelAnswers';
import { chatItems, responsesItems, toolNames } from './requestItems';
import { type ScriptStep, scriptSchema } from './scriptSteps';
import { ResponseStore } from './responseStore';

const SHARED = '*';

export interface RecordedRequest {
  api: 'chat' | 'responses';
  /** The run's workflow id, from the run-id header (the field keeps the name tests read it by). */
  runId?: string;
  stream: boolean;
  authorization?: string;
  body: Record<string, unknown>;
  /** The conversation as the server understood it. */
  items: BrainItem[];
  tools: string[];
}

export interface ScriptedModel {
  /** e.g. http://127.0.0.1:41234/v1 — what OPENAI_BASE_URL should be. */
  baseURL: string;
  /** Queue steps for one run (workflow id), or for any run with '*'. */
  script(workflowId: string, steps: ScriptStep[]): void;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Every text chunk of a streamed answer, when it was written (Date.now()): benches and tests time deltas with it. */
  sentChunks: SentChunk[];
  /** The API key the server insists on; undefined = accept any. */
  requiredApiKey?: string;
  close(): Promise<void>;
}

export interface ScriptedModelOptions {
  port?: number;
  host?: string;
  /** Reject requests whose bearer token differs (to test 401 handling). */
  requiredApiKey?: string;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}

export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const queues = new Map<string, ScriptStep[]>();
  const requests: RecordedRequest[] = [];
  const sentChunks: SentChunk[] = [];
  const store = new ResponseStore(); // Responses API: stored responses and conversations (responseStore.ts)
  const model: ScriptedModel = {
    baseURL: '',
    requests,
    sentChunks,
    requiredApiKey: options.requiredApiKey,
    script(workflowId, steps) {
      queues.set(workflowId, [...(queues.get(workflowId) ?? []), ...scriptSchema.parse(steps)]);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'POST' && url.pathname.startsWith('/_scripts/')) {
      const parsed = scriptSchema.safeParse(await readBody(req));
      if (!parsed.success) return sendJson(res, 400, { error: { message: parsed.error.message } });
      model.script(decodeURIComponent(url.pathname.slice('/_scripts/'.length)), parsed.data);
      return sendJson(res, 200, { queued: parsed.data.length });
    }
    if (req.method === 'POST' && url.pathname.endsWith('/conversations'))
      return sendJson(res, 200, store.createConversation());
    const api = url.pathname.endsWith('/chat/completions')
      ? 'chat'
      : url.pathname.endsWith('/responses')
        ? 'responses'
        : undefined;
    if (req.method !== 'POST' || !api)
      return sendJson(res, 404, {
        error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' },
      });

    const authorization = req.headers.authorization;
    const body = await readBody(req);
    const workflowId = req.headers[RUN_ID_HEADER.toLowerCase()] as string | undefined;
    const items = api === 'chat' ? chatItems(body) : responsesItems(body);
    const tools = toolNames(body);
    const stream = body.stream === true;
    requests.push({ api, runId: workflowId, stream, authorization, body, items, tools });
    if (model.requiredApiKey && authorization !== `Bearer ${model.requiredApiKey}`)
      return sendJson(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' },
      });

    const held = api === 'responses' ? store.check(body, items) : { prior: [] };
    if ('error' in held)
      return sendJson(res, held.error.status, { error: { ...held.error, type: 'invalid_request_error', code: null } });
    const queue = (workflowId && queues.get(workflowId)?.length ? queues.get(workflowId) : queues.get(SHARED)) ?? [];
    const step = queue.shift() ?? demoReply(items, tools, toolSpecs(body));
    if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (step.error) {
      const headers: Record<string, string> =
        step.error.retryAfterSeconds !== undefined ? { 'retry-after': String(step.error.retryAfterSeconds) } : {};
      return sendJson(
        res,
        step.error.status,
        { error: { message: step.error.message, type: 'scripted_error', code: null } },
        headers,
      );
    }
    const pace = stream ? { workflowId, chunkDelayMs: step.chunkDelayMs, sent: sentChunks } : undefined;
    if (api === 'chat') await answerChat(res, body, items, step, pace);
    else store.keep(body, held.prior, items, await answerResponses(res, body, items, step, pace));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 400, { error: { message: `scripted model: ${(err as Error).message}` } });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  model.baseURL = `http://${address}:${port}/v1`;
  return model;
}
