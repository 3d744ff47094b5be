// The one place Countersign's settings are declared and read. Every environment variable the product reads is
// declared in productEnvSchema (name, type, default, meaning); those of development and the tests in devEnvSchema.
// `npm run docs:env` writes both tables into docs/operations.md; test/unit/configScan.test.ts fails on a read of
// process.env anywhere else in the product, and on a variable name that these schemas do not declare. Code gets its
// settings from loadConfig / loadDevConfig (or, where no configuration reaches, from `setting`), never from
// process.env. Connection settings are parsed by @temporalio/envconfig, from the same TOML profiles and TEMPORAL_*
// variables the `temporal` CLI reads; they are declared here for the table.
import { z } from 'zod';
import { DEFAULT_TASK_QUEUE } from './contract/messages';
import { GRANTS_WORKFLOW_ID } from './contract/grantMessages';
import { REVIEWS_WORKFLOW_ID } from './contract/reviewMessages';
import { RUN_SEARCH_ATTRIBUTES } from './contract/searchAttributes';
import { type ConfigOverrides, ConfigError, configOf, devConfigOf, parseEnv, withOverrides } from './config/loadConfig';
import type { CountersignConfig, DevConfig } from './config/settings';
import { duration, durationMsOf, flag, port, readBy } from './config/envFields';
import { DEFAULT_PREDICATE_TIMEOUT } from './config/workerSettings';

export { ConfigError, type ConfigOverrides, durationMsOf };
export type { ReadBy } from './config/envFields';
export type {
  CountersignConfig,
  DevConfig,
  ModelApi,
  ModelEndpoint,
  PayloadStorageSettings,
  TracingSettings,
} from './config/settings';

export const DEFAULT_ADDRESS = 'localhost:7233';
export const DEFAULT_UI_PORT = 8233;
export const DEFAULT_SESSION_MAX_ITEMS = 200;
export const MAX_SESSION_MAX_ITEMS = 100_000;
const SESSION_ITEMS = `must be a whole number from 1 to ${MAX_SESSION_MAX_ITEMS}`;

/**
 * The runs' search attributes (contract/searchAttributes.ts) by the type names the temporal CLI takes (KEYWORD_LIST:
 * KeywordList); `npm start` registers them on the dev server, and the worker names the command for a missing one.
 */
export const SEARCH_ATTRIBUTES: Readonly<Record<string, string>> = Object.fromEntries(
  RUN_SEARCH_ATTRIBUTES.map((k) => [
    k.name,
    k.type.toLowerCase().replace(/(?:^|_)(\w)/g, (_, c: string) => c.toUpperCase()),
  ]),
);

/**
 * What the product reads: worker, client library, CLI, servers. One variable per line, left as written by Prettier:
 * a line is a row of the table (name, type and checks, default, meaning), found whole by grep and changed as one.
 */
// prettier-ignore
export const productEnvSchema = z.object({
  TEMPORAL_ADDRESS: readBy('@temporalio/envconfig', "the Temporal frontend (host:port); unset, and no profile gives one: COUNTERSIGN_DEV_ADDRESS (npm start's dev server)"),
  TEMPORAL_NAMESPACE: readBy('@temporalio/envconfig', 'the Temporal namespace', 'default'),
  TEMPORAL_API_KEY: readBy('@temporalio/envconfig', 'API key for the Temporal server (Temporal Cloud); turns TLS on. Secret'),
  TEMPORAL_TLS: readBy('@temporalio/envconfig', 'true: TLS on the connection (on by default with an API key or a client certificate)'),
  TEMPORAL_TLS_CLIENT_CERT_PATH: readBy('@temporalio/envconfig', 'mTLS client certificate file (or TEMPORAL_TLS_CLIENT_CERT_DATA, the PEM itself)'),
  TEMPORAL_TLS_CLIENT_CERT_DATA: readBy('@temporalio/envconfig', 'mTLS client certificate, PEM'),
  TEMPORAL_TLS_CLIENT_KEY_PATH: readBy('@temporalio/envconfig', 'mTLS client key file (or TEMPORAL_TLS_CLIENT_KEY_DATA, the PEM itself). Secret'),
  TEMPORAL_TLS_CLIENT_KEY_DATA: readBy('@temporalio/envconfig', 'mTLS client key, PEM. Secret'),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: readBy('@temporalio/envconfig', "CA certificate file the server's certificate is checked against"),
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: readBy('@temporalio/envconfig', "CA certificate the server's certificate is checked against, PEM"),
  TEMPORAL_TLS_SERVER_NAME: readBy('@temporalio/envconfig', 'server name expected in its certificate (SNI)'),
  TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: readBy('@temporalio/envconfig', "true: the server's certificate is not checked against its host name"),
  'TEMPORAL_GRPC_META_*': readBy('@temporalio/envconfig', 'gRPC metadata sent with every request (TEMPORAL_GRPC_META_X_FOO=bar sends x-foo: bar)'),
  TEMPORAL_PROFILE: readBy('@temporalio/envconfig', 'the profile of the TOML file to use', 'default'),
  TEMPORAL_CONFIG_FILE: readBy('@temporalio/envconfig', 'the TOML profiles file', '~/.config/temporalio/temporal.toml'),
  OPENAI_API_KEY: z.string().optional().describe("the model provider's API key, read by the worker only (never passed to workflows); with neither it nor OPENAI_BASE_URL the worker runs the scripted demo model. Secret"),
  OPENAI_BASE_URL: z.url({ error: 'must be a URL such as http://localhost:11434/v1' }).optional().describe("an OpenAI-compatible server, e.g. Ollama's http://localhost:11434/v1; unset: the provider's default"),
  COUNTERSIGN_TASK_QUEUE: z.string().min(1).default(DEFAULT_TASK_QUEUE).describe('the task queue the worker polls and new runs start on'),
  COUNTERSIGN_MODEL: z.string().min(1).default('gpt-4.1-mini').describe('the model of agents that name none'),
  COUNTERSIGN_MODEL_API: z.enum(['responses', 'chat'], { error: 'must be "responses" or "chat"' }).default('responses').describe('`responses` (OpenAI Responses API) or `chat` (Chat Completions, for compatible servers)'),
  COUNTERSIGN_MODEL_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000).describe("one model HTTP request's limit, in milliseconds (a streamed answer: the longest silence between its events); Temporal retries after it"),
  COUNTERSIGN_DEMO_OUTBOX: z.string().min(1).default('.countersign/outbox.jsonl').describe("JSON lines the demo agents' tools write their side effects to (sent emails, deleted records)"),
  COUNTERSIGN_WEBHOOK_URL: z.url({ error: 'must be a URL such as https://hooks.example.com/approvals' }).optional().describe('approval notifications (requested, reminder, escalated, timed out, decided) are POSTed here'),
  COUNTERSIGN_LEDGER_URL: z.string().min(1).default('.temporal/ledger.db').describe('the approvals ledger every decision is written to: a file path (SQLite, one file, WAL mode), `postgres://user:password@host/db` (PostgreSQL: one ledger for every worker; the password is a secret) or `off`'),
  COUNTERSIGN_LEDGER_WITNESS: z.string().min(1).optional().describe('where `countersign ledger checkpoint` (and the worker, with COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL) keeps signed checkpoints of the ledger, outside its database: a folder (a new file each, never overwritten), `s3://bucket/prefix` (the S3 store\'s endpoint and region settings) or an `https://` webhook (POSTed as JSON)'),
  COUNTERSIGN_LEDGER_CHECKPOINT_KEY: z.string().min(1).optional().describe('the Ed25519 private key (a JWK file, as `countersign ledger checkpoint-key` writes) checkpoints are signed with; keep it where the ledger\'s database administrators cannot read it. Secret'),
  COUNTERSIGN_LEDGER_CHECKPOINT_KEYS: z.string().min(1).optional().describe('a JWKS file of the public keys `ledger verify --checkpoints` trusts (the ledger-checkpoint.jwks.json `ledger checkpoint-key` writes); unset: the public half of COUNTERSIGN_LEDGER_CHECKPOINT_KEY'),
  COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL: duration('1h').optional().describe('the worker takes a ledger checkpoint this often (needs COUNTERSIGN_LEDGER_WITNESS and COUNTERSIGN_LEDGER_CHECKPOINT_KEY); unset: only `countersign ledger checkpoint` takes them'),
  COUNTERSIGN_DEPLOYMENT_NAME: z.string().min(1).optional().describe("turns Worker Versioning on: the worker deployment this worker's version belongs to"),
  COUNTERSIGN_BUILD_ID: z.string().min(1).optional().describe("this worker's build id under Worker Versioning; unset: the git commit"),
  COUNTERSIGN_VERSIONING_BEHAVIOR: z.enum(['auto-upgrade', 'pinned'], { error: 'must be "auto-upgrade" or "pinned"' }).default('auto-upgrade').describe('`auto-upgrade` (runs that wait weeks move to new code, which patched() keeps replay-safe) or `pinned`'),
  COUNTERSIGN_ENCRYPTION_KEYS: z.string().min(1).optional().describe('`keyId:base64key,…` (32-byte keys, the first encrypts): every payload is AES-256-GCM encrypted. Secret'),
  COUNTERSIGN_MAX_CACHED_WORKFLOWS: z.coerce.number({ error: 'must be a whole number such as 1000' }).int('must be a whole number such as 1000').min(0, 'must be 0 or more').optional().describe("runs the worker keeps in memory (unset: Temporal's default); paused runs beyond it are evicted and replayed when a decision arrives"),
  COUNTERSIGN_PAYLOAD_STORAGE: z.enum(['file', 's3', 'off'], { error: 'must be "file", "s3" or "off"' }).default('file').describe('where payloads too large for history go, for workers, clients, CLI and codec server alike: `file`, `s3` or `off`'),
  COUNTERSIGN_PAYLOAD_DIR: z.string().min(1).default('.temporal/payloads').describe('the file store: a folder every worker and client of the runs shares'),
  COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES: z.coerce.number({ error: 'must be a number of bytes such as 262144' }).int('must be a whole number of bytes').min(0, 'must be 0 or more').default(256 * 1024).describe('payloads from this size on (bytes) go to the store'),
  COUNTERSIGN_PAYLOAD_GC_INTERVAL: duration('6h').optional().describe('the worker sweeps the payload store this often (`countersign storage gc`, one sweep at a time, logged with counts); unset: never'),
  COUNTERSIGN_PAYLOAD_GC_MIN_AGE: duration('1h', true).default('1h').describe("the payload gc keeps unreferenced objects written or touched more recently than this: payloads of tasks still running, runs not listed yet (the CLI's --min-age overrides)"),
  COUNTERSIGN_PAYLOAD_S3_BUCKET: z.string().min(1).optional().describe('the S3 store: its bucket (required with `s3`)'),
  COUNTERSIGN_PAYLOAD_S3_ENDPOINT: z.url({ error: 'must be a URL such as http://127.0.0.1:9000' }).optional().describe('the S3 store: an S3-compatible server, addressed path-style'),
  COUNTERSIGN_PAYLOAD_S3_REGION: z.string().min(1).optional().describe("the S3 store: the bucket's region; unset: AWS_REGION, else us-east-1"),
  AWS_REGION: z.string().min(1).optional().describe("the S3 store's region when COUNTERSIGN_PAYLOAD_S3_REGION is unset (also read by the AWS SDK)"),
  AWS_ACCESS_KEY_ID: readBy('the AWS SDK', "the S3 store's credentials (with AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; or AWS_PROFILE, or an instance role)"),
  AWS_SECRET_ACCESS_KEY: readBy('the AWS SDK', "the S3 store's secret key. Secret"),
  AWS_SESSION_TOKEN: readBy('the AWS SDK', "the S3 store's session token, with temporary credentials. Secret"),
  AWS_PROFILE: readBy('the AWS SDK', 'the AWS profile (~/.aws/config, ~/.aws/credentials) credentials come from'),
  COUNTERSIGN_AGENTS_MODULE: z.string().min(1).optional().describe('a .js/.ts file exporting an array of agents, served beside the demo agents'),
  COUNTERSIGN_AGENTS_FILE: z.string().min(1).optional().describe('a JSON file declaring agents (MCP servers, approval rules), served beside the demo agents'),
  COUNTERSIGN_DELTA_RELAY: z.enum(['on', 'off'], { error: 'must be "on" or "off"' }).default('on').describe("the worker's model-delta relay: text deltas served over SSE while a model call runs, outside history"),
  COUNTERSIGN_DELTA_HOST: z.string().min(1).default('127.0.0.1').describe('the interface the delta relay listens on (deltas are model output, in clear)'),
  COUNTERSIGN_DELTA_PORT: port('7244').default(0).describe("the delta relay's port; 0: any free port"),
  COUNTERSIGN_DELTA_PUBLIC_URL: z.url({ error: 'must be a URL such as http://worker-1.internal:7244' }).optional().describe('what readers dial for deltas, when it is not http://host:port (proxies, containers)'),
  COUNTERSIGN_METRICS_ADDRESS: z.string().regex(/^(\[[\dA-Fa-f:.]+\]|[\w.-]+):\d{1,5}$/, 'must be host:port such as 127.0.0.1:9464').optional().describe("turns on the worker's Prometheus endpoint on this host:port: /metrics (Temporal's and Countersign's), /healthz and /readyz; unset: off"),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ error: 'must be a URL such as http://127.0.0.1:4318' }).optional().describe('turns tracing on: workers and clients send OpenTelemetry spans over OTLP (HTTP, protobuf) to this collector; unset: off, and nothing of OpenTelemetry is loaded'),
  OTEL_SERVICE_NAME: z.string().min(1).default('countersign').describe("the `service.name` of this process's spans, with tracing on"),
  COUNTERSIGN_APPROVER_KEYS: z.string().min(1).optional().describe("a JWKS file of approvers' Ed25519 public keys, read at worker start: signed decisions are checked against it"),
  COUNTERSIGN_PREDICATE_TIMEOUT: duration('10s').default(DEFAULT_PREDICATE_TIMEOUT).describe("how long a tool's needsApproval, onApproval or input guardrail (an adapter's SDK predicates too) may take when a call is planned; past it, as on a throw or an answer that is not one, a person decides and the audit says why"),
  COUNTERSIGN_REQUIRE_SIGNED_DECISIONS: flag('`true`: every approval this worker plans needs a decision signed by one of those keys'),
  COUNTERSIGN_FAST_MODE: flag('`true`: runs this worker describes make their model calls as local activities (trade-offs: README, "Fast mode")'),
  COUNTERSIGN_PUBLIC_URL: z.url({ error: 'must be a URL such as https://approvals.example.com' }).optional().describe('where `countersign serve` is reached: approval_requested notifications then carry one-click links'),
  COUNTERSIGN_LINK_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)').optional().describe('HMAC key of one-click links, the same on the workers and on `countersign serve`. Secret'),
  COUNTERSIGN_LINK_TTL: z.coerce.number({ error: 'must be a number of seconds such as 604800' }).int().positive('must be a positive number of seconds').default(7 * 24 * 3600).describe("the longest a one-click link lives, in seconds (never beyond its call's expiry)"),
  COUNTERSIGN_GRANTS_WORKFLOW_ID: z.string().min(1).default(GRANTS_WORKFLOW_ID).describe('the workflow id of the standing grants; workers and clients must agree (another set of grants in the same namespace)'),
  COUNTERSIGN_REVIEWS_WORKFLOW_ID: z.string().min(1).default(REVIEWS_WORKFLOW_ID).describe('the workflow id of the reviews of audit-only calls, for the CLI, the inbox and the client library (another set of reviews in the same namespace)'),
  COUNTERSIGN_SESSION_MAX_ITEMS: z.coerce.number({ error: SESSION_ITEMS }).int(SESSION_ITEMS).min(1, SESSION_ITEMS).max(MAX_SESSION_MAX_ITEMS, SESSION_ITEMS).default(DEFAULT_SESSION_MAX_ITEMS).describe("the history a session's next run starts with, at most, in items"),
  COUNTERSIGN_CODEC_TOKEN: z.string().min(1).optional().describe('the bearer token `countersign codec-server` requires (it binds beyond loopback only with one). Secret'),
  COUNTERSIGN_SERVE_TOKENS: z.string().min(1).optional().describe('`approver:token,…`: bearer tokens `countersign serve` accepts (16+ characters each) and the approvers they stand for. Secret'),
  COUNTERSIGN_SLACK_SIGNING_SECRET: z.string().min(1).optional().describe("your Slack app's signing secret: `countersign serve` then takes Slack's interactive Approve / Reject buttons at POST /slack/actions (needs COUNTERSIGN_SLACK_USERS and COUNTERSIGN_LINK_SECRET). Secret"),
  COUNTERSIGN_SLACK_USERS: z.string().min(1).optional().describe('a JSON file `{ "U0123ABC": "ann" }` mapping Slack user ids to approvers, read when `countersign serve` starts; an unmapped user is refused'),
  COUNTERSIGN_MIXED_SCRIPT_NAMES: flag('`true`: approver names may mix scripts (Latin with Cyrillic or Greek, …) where they enter (serve tokens, Slack, keys, a proxy, `--as`); look-alikes of a known approver stay refused'),
  COUNTERSIGN_APPROVER_JWT_MAX_LIFETIME: duration('1h').default('1h').describe("the longest lifetime (exp − iat, or exp − now without iat) of a verifying proxy's identity assertion `countersign serve` accepts, and of a bearer token `countersign gateway --requester-jwks` accepts"),
  COUNTERSIGN_SIGN_IN_SESSION_TTL: duration('12h').default('12h').describe("how long a browser stays signed in to `npm start`'s inbox (or `countersign serve`'s, with no identity source) after its one-time sign-in link"),
  COUNTERSIGN_GATEWAY_URL: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:8235' }).default('http://127.0.0.1:8235').describe('the `countersign gateway` that `countersign hook claude-code` and `countersign hook cursor` ask (the --gateway flag overrides it)'),
  COUNTERSIGN_GATEWAY_TOKEN: z.string().min(1).optional().describe('the bearer token that `countersign hook claude-code` and `countersign hook cursor` send the gateway: your own from COUNTERSIGN_GATEWAY_TOKENS, or an access token from the authorization server it trusts (`--requester-jwks`), whose subject is the requester. Secret'),
  COUNTERSIGN_GATEWAY_TOKENS: z.string().min(1).optional().describe('`engineer:token,…`: bearer tokens `countersign gateway` accepts (16+ characters each) and the engineers they stand for, as requesters of hook calls, approval requests and MCP calls. Secret'),
  COUNTERSIGN_DEBUG: z.string().optional().describe('any value: a fatal error prints its stack too'),
  NO_COLOR: z.string().optional().describe('any value: the CLI prints without colour'),
  PATH: z.string().min(1).default('/usr/local/bin:/usr/bin:/bin').describe("the PATH the shell tool's commands get (it passes only PATH and HOME on)"),
});

/** What development and the tests read: `npm start`'s dev server, the scripted model, the demo MCP server, the test harness. */
// prettier-ignore
export const devEnvSchema = z.object({
  COUNTERSIGN_DEV_ADDRESS: z.string().regex(/^[\w.-]+:\d+$/, 'must look like localhost:7233').default(DEFAULT_ADDRESS).describe('where `npm start` runs (or finds) its dev server; everything connects there when neither TEMPORAL_ADDRESS nor a profile names a server'),
  COUNTERSIGN_DEV_DB: z.string().min(1).default('.temporal/dev.db').describe("the dev server's SQLite file (its state survives restarts)"),
  COUNTERSIGN_UI_PORT: port(String(DEFAULT_UI_PORT), 1).default(DEFAULT_UI_PORT).describe("the dev server's Web UI port"),
  COUNTERSIGN_SCRIPTED_MODEL_PORT: port('4000').default(0).describe('the port of the scripted demo model a worker starts when no model is configured; 0: any free port'),
  COUNTERSIGN_INBOX_PORT: port('8234').default(8234).describe("the port of `npm start`'s approvals inbox on 127.0.0.1 (its banner prints a one-time sign-in link); 0: any free port"),
  COUNTERSIGN_MCP_LEDGER: z.string().min(1).optional().describe('the demo MCP server: a JSON-lines file every tools/call is appended to'),
  COUNTERSIGN_MCP_TOOLS_FILE: z.string().min(1).optional().describe('the demo MCP server: a JSON file `{ "hide": [...] }` read at every request'),
  COUNTERSIGN_MCP_HIDE: z.string().optional().describe('the demo MCP server: tools it hides, comma-separated'),
  COUNTERSIGN_TEST_ADDRESS: z.string().min(1).optional().describe("set by the tests' globalSetup: the shared dev server's address"),
  COUNTERSIGN_TEST_UI: z.string().min(1).optional().describe("set by the tests' globalSetup: that server's Web UI"),
  COUNTERSIGN_TEST_BUNDLE: z.string().min(1).optional().describe("set by the tests' globalSetup: the workflow bundle the test workers share"),
  COUNTERSIGN_FAULTS_FULL: z.string().optional().describe('`1`: the fault suites run their long variants (`npm run test:faults` sets it)'),
  COUNTERSIGN_TEST_SUMMARY: readBy('the jest reporter', "a file test/support/summaryReporter.js writes the run's totals to (JSON)"),
  COUNTERSIGN_CHROMIUM_PATH: readBy('the tests', 'the Chromium the browser tests drive', '/usr/bin/chromium, or chromium on PATH'),
  COUNTERSIGN_SKIP_PREREQUISITES: readBy('scripts/test-prerequisites.mjs', '`1`: `npm test` skips its check for Chromium and the Temporal binaries'),
  TEMPORAL_CLI_PATH: readBy('scripts/temporal-toolchain.mjs', 'the `temporal` CLI the dev server and the tests run', '.temporal/bin/temporal, else PATH, else installed'),
  TEMPORAL_TEST_SERVER_PATH: readBy('scripts/temporal-toolchain.mjs', 'the time-skipping test server the tests run', '.temporal/bin/temporal-test-server, else PATH, else installed'),
  COUNTERSIGN_SKIP_TOOLCHAIN: readBy('scripts/temporal-toolchain.mjs', "`1`: `npm install` in a clone fetches no Temporal binaries (npm start and the tests fetch them when they need them); a dependency's install never does"),
  COUNTERSIGN_WEED_PATH: readBy('scripts/temporal-toolchain.mjs', 'the SeaweedFS binary the S3 tests run', '.temporal/bin/weed, else PATH, else installed'),
});

export type ProductEnv = z.infer<typeof productEnvSchema>;
export type DevEnv = z.infer<typeof devEnvSchema>;

/** Everything the product reads, checked; `overrides` (command-line options, startWorker's) win over `env`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: ConfigOverrides = {}): CountersignConfig {
  const given = withOverrides(env, overrides);
  return configOf(parseEnv(productEnvSchema, given), loadDevConfig(given), given);
}

/** What development and the tests read, checked. */
export function loadDevConfig(env: NodeJS.ProcessEnv = process.env): DevConfig {
  return devConfigOf(parseEnv(devEnvSchema, env));
}

/**
 * One product setting, checked, for the few places no loaded configuration reaches: a tool running in an activity
 * (PATH, the demo outbox when no worker configured it), a library default (the grants workflow id), an error path
 * that runs before or without a configuration (COUNTERSIGN_DEBUG, NO_COLOR).
 */
export function setting<K extends keyof ProductEnv>(name: K, env: NodeJS.ProcessEnv = process.env): ProductEnv[K] {
  const one: z.ZodObject = z.object({ [name]: productEnvSchema.shape[name] });
  return (parseEnv(one, env) as ProductEnv)[name];
}
