// The shape of the loaded configuration: what loadConfig and loadDevConfig (temporal.config.ts) return. The variables
// themselves, their types, defaults and meanings are declared in temporal.config.ts; the comments here name them.
import type { loadClientConnectConfig } from '@temporalio/envconfig';
import type { LinkSettings } from '../links/actionLinks';

export type ModelApi = 'responses' | 'chat';

export interface ModelEndpoint {
  /** OPENAI_BASE_URL; undefined = the provider's default. */
  baseURL?: string;
  /** OPENAI_API_KEY. Read by the worker only; never passed to workflows. */
  apiKey?: string;
  /** COUNTERSIGN_MODEL */
  model: string;
  /** COUNTERSIGN_MODEL_API */
  api: ModelApi;
  /** COUNTERSIGN_MODEL_TIMEOUT_MS */
  requestTimeoutMs: number;
}

/** COUNTERSIGN_PAYLOAD_STORAGE and the store's settings (COUNTERSIGN_PAYLOAD_DIR, _S3_*, _THRESHOLD_BYTES). */
export type PayloadStorageSettings =
  | { kind: 'off' }
  | { kind: 'file'; dir: string; thresholdBytes: number }
  | { kind: 's3'; bucket: string; endpoint?: string; region?: string; thresholdBytes: number };

/** Where spans go (OTEL_EXPORTER_OTLP_ENDPOINT, a collector's OTLP/HTTP base URL) and whose they are (OTEL_SERVICE_NAME). */
export interface TracingSettings {
  endpoint: string;
  serviceName: string;
}

export interface CountersignConfig {
  /** From TEMPORAL_ADDRESS / profile, else COUNTERSIGN_DEV_ADDRESS; `addressExplicit`: the user named it (then `npm start` starts no dev server). */
  address: string;
  addressExplicit: boolean;
  namespace: string;
  /** COUNTERSIGN_TASK_QUEUE */
  taskQueue: string;
  /** Connection options as envconfig resolved them (address, TLS, API key, gRPC metadata). */
  connection: ReturnType<typeof loadClientConnectConfig>['connectionOptions'];
  model: ModelEndpoint;
  /** COUNTERSIGN_DEMO_OUTBOX */
  demoOutbox: string;
  /** COUNTERSIGN_WEBHOOK_URL: where approval notifications are POSTed. */
  webhookUrl?: string;
  /** COUNTERSIGN_LEDGER_URL: the approvals ledger (a SQLite file path, a postgres:// URL, or `off`); absent: off. Its password is a secret. */
  ledgerUrl?: string;
  /** COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL (with _WITNESS and _CHECKPOINT_KEY): the worker's periodic checkpoints; absent: off. */
  ledgerCheckpoints?: { intervalMs: number; witness: string; keyFile: string };
  /** Worker Versioning: COUNTERSIGN_DEPLOYMENT_NAME, COUNTERSIGN_BUILD_ID (else the git commit), COUNTERSIGN_VERSIONING_BEHAVIOR. */
  deployment?: { name: string; buildId: string; behavior: 'AUTO_UPGRADE' | 'PINNED' };
  /** COUNTERSIGN_ENCRYPTION_KEYS, checked. Secret. */
  encryptionKeys?: string;
  /** COUNTERSIGN_MAX_CACHED_WORKFLOWS */
  maxCachedWorkflows?: number;
  payloadStorage: PayloadStorageSettings;
  /** COUNTERSIGN_PAYLOAD_GC_MIN_AGE and COUNTERSIGN_PAYLOAD_GC_INTERVAL (absent: the worker never sweeps), in ms. */
  payloadGc: { minAgeMs: number; intervalMs?: number };
  /** COUNTERSIGN_AGENTS_MODULE */
  agentsModule?: string;
  /** COUNTERSIGN_AGENTS_FILE */
  agentsFile?: string;
  /** COUNTERSIGN_DELTA_HOST, _PORT, _PUBLIC_URL; absent with COUNTERSIGN_DELTA_RELAY=off. */
  deltaRelay?: { host: string; port: number; publicUrl?: string };
  /** COUNTERSIGN_METRICS_ADDRESS: host:port of the worker's metrics, health and readiness endpoint; absent: off. */
  metricsAddress?: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME: traces; absent: off. */
  tracing?: TracingSettings;
  /** COUNTERSIGN_APPROVER_KEYS */
  approverKeysFile?: string;
  /** COUNTERSIGN_REQUIRE_SIGNED_DECISIONS=true: every approval this worker plans needs a signed decision. */
  requireSignedDecisions: boolean;
  /** COUNTERSIGN_PREDICATE_TIMEOUT, in ms: the most a tool's predicate, onApproval or input guardrail may take when a call is planned. */
  predicateTimeoutMs: number;
  /** Fast mode, COUNTERSIGN_FAST_MODE=true: the runs this worker describes make their model calls as local activities. */
  fastMode: boolean;
  /** One-click links in approval_requested notifications: COUNTERSIGN_PUBLIC_URL, COUNTERSIGN_LINK_SECRET, COUNTERSIGN_LINK_TTL (present when the URL is set). */
  links?: LinkSettings;
  /** COUNTERSIGN_LINK_SECRET, also without a public URL: `countersign serve` checks links with it. Secret. */
  linkSecret?: string;
  /** COUNTERSIGN_GRANTS_WORKFLOW_ID: the standing grants planning asks (default `countersign-grants`). */
  grantsWorkflowId: string;
  /** COUNTERSIGN_SESSION_MAX_ITEMS */
  sessionMaxItems: number;
  /** COUNTERSIGN_CODEC_TOKEN. Secret. */
  codecToken?: string;
  /** COUNTERSIGN_SERVE_TOKENS, as given (`countersign serve` parses it). Secret. */
  serveTokens?: string;
  /** COUNTERSIGN_GATEWAY_TOKENS, as given (`countersign gateway` parses it). Secret. */
  gatewayTokens?: string;
  /** COUNTERSIGN_SLACK_SIGNING_SECRET. Secret. */
  slackSigningSecret?: string;
  /** COUNTERSIGN_SLACK_USERS: the Slack user mapping file. */
  slackUsersFile?: string;
  /** COUNTERSIGN_MIXED_SCRIPT_NAMES=true: approver names may mix scripts where they enter (contract/approverName.ts). */
  mixedScriptNames: boolean;
  /** COUNTERSIGN_APPROVER_JWT_MAX_LIFETIME, in ms: longer-lived proxy assertions are refused. */
  approverJwtMaxLifetimeMs: number;
  /** COUNTERSIGN_SIGN_IN_SESSION_TTL, in ms: how long a one-time sign-in link's session lasts (npm start, serve without an identity source). */
  signInSessionTtlMs: number;
  /** COUNTERSIGN_DEBUG set */
  debug: boolean;
  /** Development settings (devEnvSchema): the dev server, the scripted model, … */
  dev: DevConfig;
}

export interface DevConfig {
  /** `npm start`'s dev server: COUNTERSIGN_DEV_ADDRESS, COUNTERSIGN_DEV_DB, COUNTERSIGN_UI_PORT. */
  devServer: { address: string; dbFile: string; uiPort: number };
  /** COUNTERSIGN_SCRIPTED_MODEL_PORT (0: any free port). */
  scriptedModelPort: number;
  /** COUNTERSIGN_INBOX_PORT: `npm start`'s approvals inbox on 127.0.0.1 (0: any free port). */
  inboxPort: number;
  /** The demo MCP server: COUNTERSIGN_MCP_LEDGER, COUNTERSIGN_MCP_TOOLS_FILE, COUNTERSIGN_MCP_HIDE. */
  demoMcp: { ledger?: string; toolsFile?: string; hide: string[] };
  /** Set by the tests' globalSetup (COUNTERSIGN_TEST_ADDRESS, _UI, _BUNDLE); COUNTERSIGN_FAULTS_FULL=1; COUNTERSIGN_CHROMIUM_PATH. */
  test: { address?: string; ui?: string; bundle?: string; faultsFull: boolean; chromium?: string };
}
