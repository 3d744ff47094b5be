// The one place Countersign reads its settings. Connection settings come from the same TOML profiles and
// TEMPORAL_* variables the `temporal` CLI reads (@temporalio/envconfig): TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
// TEMPORAL_API_KEY, TEMPORAL_TLS*, TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE. Countersign's own knobs are COUNTERSIGN_*.
import { execFileSync } from 'node:child_process';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import { z } from 'zod';
import { EncryptionKeyError, parseEncryptionKeys } from './codec/encryptionCodec';

export const DEFAULT_ADDRESS = 'localhost:7233';
export const DEFAULT_UI_PORT = 8233;

/** Search attributes the workflow upserts; `npm start` registers them on the dev server. */
export const SEARCH_ATTRIBUTES = {
  HitlStatus: 'Keyword',
  HitlPendingTools: 'KeywordList',
  HitlAgent: 'Keyword',
  HitlPendingSince: 'Datetime',
} as const;

export type ModelApi = 'responses' | 'chat';

export interface ModelSettings {
  /** OPENAI_BASE_URL; undefined = the provider's default. */
  baseURL?: string;
  /** OPENAI_API_KEY. Read by the worker only; never passed to workflows. */
  apiKey?: string;
  /** COUNTERSIGN_MODEL */
  model: string;
  /** COUNTERSIGN_MODEL_API: `responses` (OpenAI Responses API) or `chat` (Chat Completions, for compatible servers). */
  api: ModelApi;
  /** COUNTERSIGN_MODEL_TIMEOUT_MS: one HTTP request's limit; Temporal retries after it. */
  requestTimeoutMs: number;
}

export interface CountersignConfig {
  /** From TEMPORAL_ADDRESS / profile; `explicit` says whether the user chose it (then `npm start` starts no dev server). */
  address: string;
  addressExplicit: boolean;
  namespace: string;
  taskQueue: string;
  /** Connection options as envconfig resolved them (address, TLS, API key, gRPC metadata). */
  connection: ReturnType<typeof loadClientConnectConfig>['connectionOptions'];
  /** Dev server launched by `npm start` when no TEMPORAL_ADDRESS is given (at COUNTERSIGN_DEV_ADDRESS, default localhost:7233). */
  devServer: { dbFile: string; uiPort: number };
  model: ModelSettings;
  /** COUNTERSIGN_DEMO_OUTBOX: JSON lines written by the demo tools' side effects. */
  demoOutbox: string;
  /** COUNTERSIGN_WEBHOOK_URL: approval notifications (requested, reminder, escalated, timed out) are POSTed here. */
  webhookUrl?: string;
  /**
   * Worker Versioning (Temporal worker deployments), on when COUNTERSIGN_DEPLOYMENT_NAME is set. Build id from
   * COUNTERSIGN_BUILD_ID, else the git commit. Behaviour COUNTERSIGN_VERSIONING_BEHAVIOR: 'auto-upgrade' (default:
   * runs that wait weeks move to new code, which patched() keeps replay-safe) or 'pinned'.
   */
  deployment?: { name: string; buildId: string; behavior: 'AUTO_UPGRADE' | 'PINNED' };
  /** COUNTERSIGN_ENCRYPTION_KEYS (`keyId:base64,…`, first encrypts): payloads are AES-256-GCM encrypted. Secret. */
  encryptionKeys?: string;
  /**
   * COUNTERSIGN_MAX_CACHED_WORKFLOWS: how many runs the worker keeps in memory. Paused runs beyond it are evicted
   * and replayed from history when a decision arrives, so memory stays bounded however many runs wait.
   */
  maxCachedWorkflows?: number;
  /**
   * Where payloads too large for history go (Temporal's external storage, a claim check), for worker, clients, CLI
   * and codec server alike. COUNTERSIGN_PAYLOAD_STORAGE: `file` (default; COUNTERSIGN_PAYLOAD_DIR, default
   * .temporal/payloads), `s3` (COUNTERSIGN_PAYLOAD_S3_BUCKET, _ENDPOINT, _REGION and the usual AWS
   * credentials), or `off`. COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES: payloads from this size on are offloaded (256 KiB).
   */
  payloadStorage: PayloadStorageSettings;
  /** COUNTERSIGN_AGENTS_MODULE: a .js/.ts file exporting an array of agents, served beside the demo agents. */
  agentsModule?: string;
  /** COUNTERSIGN_AGENTS_FILE: a JSON file declaring agents (MCP servers, approval rules), served beside the demo agents. */
  agentsFile?: string;
  /**
   * The worker's model-delta relay (worker/deltaRelay.ts): an SSE port readers get text deltas from while a model call
   * runs, outside history. COUNTERSIGN_DELTA_HOST (127.0.0.1), COUNTERSIGN_DELTA_PORT (0 = any free port),
   * COUNTERSIGN_DELTA_PUBLIC_URL (what readers dial, if not http://host:port). Absent with COUNTERSIGN_DELTA_RELAY=off.
   */
  deltaRelay?: { host: string; port: number; publicUrl?: string };
  /** COUNTERSIGN_APPROVER_KEYS: a JWKS file of approvers' Ed25519 public keys; signed decisions are checked against it (read at worker start). */
  approverKeysFile?: string;
  /** COUNTERSIGN_REQUIRE_SIGNED_DECISIONS=true: every approval this worker plans needs a decision signed by one of those keys. */
  requireSignedDecisions: boolean;
  /**
   * COUNTERSIGN_FAST_MODE=true: runs this worker describes make their model calls as local activities (one history
   * marker and no extra workflow task per turn instead of three events and a round trip through the task queue).
   * Trade-offs in the README ("Fast mode"); the choice is recorded in each run's agent snapshot.
   */
  fastMode: boolean;
  /**
   * One-click action links in approval_requested notifications: COUNTERSIGN_PUBLIC_URL (where `countersign serve` is
   * reached), COUNTERSIGN_LINK_SECRET (HMAC key shared by workers and the server), COUNTERSIGN_LINK_TTL (longest life, seconds).
   */
  links?: { publicUrl: string; secret: string; maxTtlSeconds: number };
}

export type PayloadStorageSettings =
  | { kind: 'off' }
  | { kind: 'file'; dir: string; thresholdBytes: number }
  | { kind: 's3'; bucket: string; endpoint?: string; region?: string; thresholdBytes: number };

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: __dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const envSchema = z.object({
  COUNTERSIGN_TASK_QUEUE: z.string().min(1).default('countersign'),
  COUNTERSIGN_MODEL: z.string().min(1).default('gpt-4.1-mini'),
  COUNTERSIGN_MODEL_API: z.enum(['responses', 'chat'], { error: 'must be "responses" or "chat"' }).default('responses'),
  COUNTERSIGN_MODEL_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  COUNTERSIGN_DEV_DB: z.string().min(1).default('.temporal/dev.db'),
  COUNTERSIGN_DEV_ADDRESS: z.string().regex(/^[\w.-]+:\d+$/, 'must look like localhost:7233').default(DEFAULT_ADDRESS),
  COUNTERSIGN_UI_PORT: z.coerce.number().int().min(1).max(65535).default(DEFAULT_UI_PORT),
  COUNTERSIGN_DEMO_OUTBOX: z.string().min(1).default('.countersign/outbox.jsonl'),
  OPENAI_BASE_URL: z.url({ error: 'must be a URL such as http://localhost:11434/v1' }).optional(),
  OPENAI_API_KEY: z.string().optional(),
  COUNTERSIGN_WEBHOOK_URL: z.url({ error: 'must be a URL such as https://hooks.example.com/approvals' }).optional(),
  COUNTERSIGN_DEPLOYMENT_NAME: z.string().min(1).optional(),
  COUNTERSIGN_BUILD_ID: z.string().min(1).optional(),
  COUNTERSIGN_ENCRYPTION_KEYS: z.string().min(1).optional(),
  COUNTERSIGN_MAX_CACHED_WORKFLOWS: z.coerce.number({ error: 'must be a whole number such as 1000' }).int('must be a whole number such as 1000').min(0, 'must be 0 or more').optional(),
  COUNTERSIGN_PAYLOAD_STORAGE: z.enum(['file', 's3', 'off'], { error: 'must be "file", "s3" or "off"' }).default('file'),
  COUNTERSIGN_PAYLOAD_DIR: z.string().min(1).default('.temporal/payloads'),
  COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES: z.coerce.number({ error: 'must be a number of bytes such as 262144' }).int('must be a whole number of bytes').min(0, 'must be 0 or more').default(256 * 1024),
  COUNTERSIGN_PAYLOAD_S3_BUCKET: z.string().min(1).optional(),
  COUNTERSIGN_PAYLOAD_S3_ENDPOINT: z.url({ error: 'must be a URL such as http://127.0.0.1:9000' }).optional(),
  COUNTERSIGN_PAYLOAD_S3_REGION: z.string().min(1).optional(),
  COUNTERSIGN_AGENTS_MODULE: z.string().min(1).optional(),
  COUNTERSIGN_AGENTS_FILE: z.string().min(1).optional(),
  COUNTERSIGN_VERSIONING_BEHAVIOR: z.enum(['auto-upgrade', 'pinned'], { error: 'must be "auto-upgrade" or "pinned"' }).default('auto-upgrade'),
  COUNTERSIGN_DELTA_RELAY: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).default('on'),
  COUNTERSIGN_DELTA_HOST: z.string().min(1).default('127.0.0.1'),
  COUNTERSIGN_DELTA_PORT: z.coerce.number({ error: 'must be a port number such as 7244' }).int('must be a port number such as 7244').min(0, 'must be 0 to 65535').max(65535, 'must be 0 to 65535').default(0),
  COUNTERSIGN_DELTA_PUBLIC_URL: z.url({ error: 'must be a URL such as http://worker-1.internal:7244' }).optional(),
  COUNTERSIGN_APPROVER_KEYS: z.string().min(1).optional(),
  COUNTERSIGN_REQUIRE_SIGNED_DECISIONS: z.enum(['true', 'false'], { error: 'must be "true" or "false"' }).default('false'),
  COUNTERSIGN_FAST_MODE: z.enum(['true', 'false'], { error: 'must be "true" or "false"' }).default('false'),
  COUNTERSIGN_PUBLIC_URL: z.url({ error: 'must be a URL such as https://approvals.example.com' }).optional(),
  COUNTERSIGN_LINK_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)').optional(),
  COUNTERSIGN_LINK_TTL: z.coerce.number({ error: 'must be a number of seconds such as 604800' }).int().positive('must be a positive number of seconds').default(7 * 24 * 3600),
});

/** Thrown for a setting that cannot work; the message is one line that says what to change. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CountersignConfig {
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  let connect;
  try {
    connect = loadClientConnectConfig({
      profile: env.TEMPORAL_PROFILE,
      overrideEnvVars: Object.fromEntries(Object.entries(env).filter((kv): kv is [string, string] => kv[1] !== undefined)),
    });
  } catch (err) {
    throw new ConfigError(`cannot read the Temporal connection profile: ${(err as Error).message}`);
  }
  const address = connect.connectionOptions.address ?? e.COUNTERSIGN_DEV_ADDRESS;
  return {
    address,
    addressExplicit: connect.connectionOptions.address !== undefined,
    namespace: connect.namespace ?? 'default',
    taskQueue: e.COUNTERSIGN_TASK_QUEUE,
    connection: { ...connect.connectionOptions, address },
    devServer: { dbFile: e.COUNTERSIGN_DEV_DB, uiPort: e.COUNTERSIGN_UI_PORT },
    model: {
      baseURL: e.OPENAI_BASE_URL,
      apiKey: e.OPENAI_API_KEY,
      model: e.COUNTERSIGN_MODEL,
      api: e.COUNTERSIGN_MODEL_API,
      requestTimeoutMs: e.COUNTERSIGN_MODEL_TIMEOUT_MS,
    },
    demoOutbox: e.COUNTERSIGN_DEMO_OUTBOX,
    webhookUrl: e.COUNTERSIGN_WEBHOOK_URL,
    payloadStorage: payloadStorageOf(e),
    ...(e.COUNTERSIGN_AGENTS_MODULE ? { agentsModule: e.COUNTERSIGN_AGENTS_MODULE } : {}),
    ...(e.COUNTERSIGN_AGENTS_FILE ? { agentsFile: e.COUNTERSIGN_AGENTS_FILE } : {}),
    ...(e.COUNTERSIGN_MAX_CACHED_WORKFLOWS !== undefined ? { maxCachedWorkflows: e.COUNTERSIGN_MAX_CACHED_WORKFLOWS } : {}),
    ...(e.COUNTERSIGN_ENCRYPTION_KEYS ? { encryptionKeys: checkedKeys(e.COUNTERSIGN_ENCRYPTION_KEYS) } : {}),
    ...(e.COUNTERSIGN_DELTA_RELAY === 'on'
      ? { deltaRelay: { host: e.COUNTERSIGN_DELTA_HOST, port: e.COUNTERSIGN_DELTA_PORT, ...(e.COUNTERSIGN_DELTA_PUBLIC_URL ? { publicUrl: e.COUNTERSIGN_DELTA_PUBLIC_URL } : {}) } }
      : {}),
    ...(e.COUNTERSIGN_DEPLOYMENT_NAME ? { deployment: deploymentOf(e.COUNTERSIGN_DEPLOYMENT_NAME, e.COUNTERSIGN_BUILD_ID, e.COUNTERSIGN_VERSIONING_BEHAVIOR) } : {}),
    ...(e.COUNTERSIGN_APPROVER_KEYS ? { approverKeysFile: e.COUNTERSIGN_APPROVER_KEYS } : {}),
    requireSignedDecisions: e.COUNTERSIGN_REQUIRE_SIGNED_DECISIONS === 'true',
    fastMode: e.COUNTERSIGN_FAST_MODE === 'true',
    ...linksOf(e),
  };
}

function linksOf(e: z.infer<typeof envSchema>): Pick<CountersignConfig, 'links'> {
  if (!e.COUNTERSIGN_PUBLIC_URL) return {};
  if (!e.COUNTERSIGN_LINK_SECRET) throw new ConfigError('COUNTERSIGN_PUBLIC_URL is set but COUNTERSIGN_LINK_SECRET is not: set the same secret (32+ characters) on the workers and on countersign serve');
  return { links: { publicUrl: e.COUNTERSIGN_PUBLIC_URL, secret: e.COUNTERSIGN_LINK_SECRET, maxTtlSeconds: e.COUNTERSIGN_LINK_TTL } };
}

function deploymentOf(name: string, buildId: string | undefined, behavior: 'auto-upgrade' | 'pinned'): NonNullable<CountersignConfig['deployment']> {
  const id = buildId ?? gitCommit();
  if (!id) throw new ConfigError('COUNTERSIGN_DEPLOYMENT_NAME is set but there is no build id: set COUNTERSIGN_BUILD_ID (no git commit to default to)');
  return { name, buildId: id, behavior: behavior === 'pinned' ? 'PINNED' : 'AUTO_UPGRADE' };
}

function payloadStorageOf(e: z.infer<typeof envSchema>): PayloadStorageSettings {
  const thresholdBytes = e.COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES;
  if (e.COUNTERSIGN_PAYLOAD_STORAGE === 'off') return { kind: 'off' };
  if (e.COUNTERSIGN_PAYLOAD_STORAGE === 'file') return { kind: 'file', dir: e.COUNTERSIGN_PAYLOAD_DIR, thresholdBytes };
  if (!e.COUNTERSIGN_PAYLOAD_S3_BUCKET) throw new ConfigError('COUNTERSIGN_PAYLOAD_STORAGE is s3 but COUNTERSIGN_PAYLOAD_S3_BUCKET is not set: name the bucket');
  return {
    kind: 's3',
    bucket: e.COUNTERSIGN_PAYLOAD_S3_BUCKET,
    thresholdBytes,
    ...(e.COUNTERSIGN_PAYLOAD_S3_ENDPOINT ? { endpoint: e.COUNTERSIGN_PAYLOAD_S3_ENDPOINT } : {}),
    ...(e.COUNTERSIGN_PAYLOAD_S3_REGION ? { region: e.COUNTERSIGN_PAYLOAD_S3_REGION } : {}),
  };
}

function checkedKeys(spec: string): string {
  try {
    parseEncryptionKeys(spec);
  } catch (err) {
    if (err instanceof EncryptionKeyError) throw new ConfigError(err.message);
    throw err;
  }
  return spec;
}
