// How the variables declared in temporal.config.ts become the loaded configuration: parsed and checked (one line per
// problem, `VARIABLE: what is wrong`), then shaped into CountersignConfig / DevConfig. Nothing here reads
// process.env: temporal.config.ts hands the environment in.
import { execFileSync } from 'node:child_process';
import { msToNumber } from '@temporalio/common/lib/time';
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { z } from 'zod';
import { EncryptionKeyError, parseEncryptionKeys } from '../codec/encryptionCodec';
import type { DevEnv, ProductEnv } from '../temporal.config';
import type { CountersignConfig, DevConfig, PayloadStorageSettings } from './settings';

/** Thrown for a setting that cannot work; the message is one line that says what to change. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** What a caller sets over the environment (command-line options, startWorker's and Runner.connect's options). */
export interface ConfigOverrides {
  /** TEMPORAL_ADDRESS */
  address?: string;
  /** TEMPORAL_NAMESPACE */
  namespace?: string;
  /** COUNTERSIGN_TASK_QUEUE */
  taskQueue?: string;
}

export function withOverrides(env: NodeJS.ProcessEnv, o: ConfigOverrides): NodeJS.ProcessEnv {
  return {
    ...env,
    ...(o.address ? { TEMPORAL_ADDRESS: o.address } : {}),
    ...(o.namespace ? { TEMPORAL_NAMESPACE: o.namespace } : {}),
    ...(o.taskQueue ? { COUNTERSIGN_TASK_QUEUE: o.taskQueue } : {}),
  };
}

/** The schema's variables from `env` (an empty value counts as unset), or a ConfigError naming the first bad one. */
export function parseEnv<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv): z.infer<S> {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ConfigError(`${String(issue.path[0])}: ${issue.message}`);
}

export function devConfigOf(e: DevEnv): DevConfig {
  return {
    devServer: { address: e.COUNTERSIGN_DEV_ADDRESS, dbFile: e.COUNTERSIGN_DEV_DB, uiPort: e.COUNTERSIGN_UI_PORT },
    scriptedModelPort: e.COUNTERSIGN_SCRIPTED_MODEL_PORT,
    inboxPort: e.COUNTERSIGN_INBOX_PORT,
    demoMcp: {
      ...(e.COUNTERSIGN_MCP_LEDGER ? { ledger: e.COUNTERSIGN_MCP_LEDGER } : {}),
      ...(e.COUNTERSIGN_MCP_TOOLS_FILE ? { toolsFile: e.COUNTERSIGN_MCP_TOOLS_FILE } : {}),
      hide: (e.COUNTERSIGN_MCP_HIDE ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    },
    test: {
      ...(e.COUNTERSIGN_TEST_ADDRESS ? { address: e.COUNTERSIGN_TEST_ADDRESS } : {}),
      ...(e.COUNTERSIGN_TEST_UI ? { ui: e.COUNTERSIGN_TEST_UI } : {}),
      ...(e.COUNTERSIGN_TEST_BUNDLE ? { bundle: e.COUNTERSIGN_TEST_BUNDLE } : {}),
      faultsFull: e.COUNTERSIGN_FAULTS_FULL === '1',
      ...(e.COUNTERSIGN_CHROMIUM_PATH ? { chromium: e.COUNTERSIGN_CHROMIUM_PATH } : {}),
    },
  };
}

/** The connection as envconfig resolves it from the same `env` (TEMPORAL_* variables and TOML profiles). */
function connectionOf(env: NodeJS.ProcessEnv) {
  try {
    return loadClientConnectConfig({
      profile: env.TEMPORAL_PROFILE,
      overrideEnvVars: Object.fromEntries(
        Object.entries(env).filter((kv): kv is [string, string] => kv[1] !== undefined),
      ),
    });
  } catch (err) {
    throw new ConfigError(`cannot read the Temporal connection profile: ${(err as Error).message}`);
  }
}

export function configOf(e: ProductEnv, dev: DevConfig, env: NodeJS.ProcessEnv): CountersignConfig {
  const connect = connectionOf(env);
  const address = connect.connectionOptions.address ?? dev.devServer.address;
  return {
    address,
    addressExplicit: connect.connectionOptions.address !== undefined,
    namespace: connect.namespace ?? 'default',
    taskQueue: e.COUNTERSIGN_TASK_QUEUE,
    connection: { ...connect.connectionOptions, address },
    model: {
      baseURL: e.OPENAI_BASE_URL,
      apiKey: e.OPENAI_API_KEY,
      model: e.COUNTERSIGN_MODEL,
      api: e.COUNTERSIGN_MODEL_API,
      requestTimeoutMs: e.COUNTERSIGN_MODEL_TIMEOUT_MS,
    },
    demoOutbox: e.COUNTERSIGN_DEMO_OUTBOX,
    webhookUrl: e.COUNTERSIGN_WEBHOOK_URL,
    ledgerUrl: e.COUNTERSIGN_LEDGER_URL,
    ...ledgerCheckpointsOf(e),
    payloadStorage: payloadStorageOf(e),
    payloadGc: {
      minAgeMs: msToNumber(e.COUNTERSIGN_PAYLOAD_GC_MIN_AGE as never),
      ...(e.COUNTERSIGN_PAYLOAD_GC_INTERVAL
        ? { intervalMs: msToNumber(e.COUNTERSIGN_PAYLOAD_GC_INTERVAL as never) }
        : {}),
    },
    ...(e.COUNTERSIGN_AGENTS_MODULE ? { agentsModule: e.COUNTERSIGN_AGENTS_MODULE } : {}),
    ...(e.COUNTERSIGN_AGENTS_FILE ? { agentsFile: e.COUNTERSIGN_AGENTS_FILE } : {}),
    ...(e.COUNTERSIGN_MAX_CACHED_WORKFLOWS !== undefined
      ? { maxCachedWorkflows: e.COUNTERSIGN_MAX_CACHED_WORKFLOWS }
      : {}),
    ...(e.COUNTERSIGN_ENCRYPTION_KEYS ? { encryptionKeys: checkedKeys(e.COUNTERSIGN_ENCRYPTION_KEYS) } : {}),
    ...(e.COUNTERSIGN_DELTA_RELAY === 'on'
      ? {
          deltaRelay: {
            host: e.COUNTERSIGN_DELTA_HOST,
            port: e.COUNTERSIGN_DELTA_PORT,
            ...(e.COUNTERSIGN_DELTA_PUBLIC_URL ? { publicUrl: e.COUNTERSIGN_DELTA_PUBLIC_URL } : {}),
          },
        }
      : {}),
    ...(e.COUNTERSIGN_DEPLOYMENT_NAME
      ? {
          deployment: deploymentOf(
            e.COUNTERSIGN_DEPLOYMENT_NAME,
            e.COUNTERSIGN_BUILD_ID,
            e.COUNTERSIGN_VERSIONING_BEHAVIOR,
          ),
        }
      : {}),
    ...(e.COUNTERSIGN_METRICS_ADDRESS ? { metricsAddress: e.COUNTERSIGN_METRICS_ADDRESS } : {}),
    ...(e.OTEL_EXPORTER_OTLP_ENDPOINT
      ? { tracing: { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: e.OTEL_SERVICE_NAME } }
      : {}),
    ...(e.COUNTERSIGN_APPROVER_KEYS ? { approverKeysFile: e.COUNTERSIGN_APPROVER_KEYS } : {}),
    requireSignedDecisions: e.COUNTERSIGN_REQUIRE_SIGNED_DECISIONS === 'true',
    fastMode: e.COUNTERSIGN_FAST_MODE === 'true',
    predicateTimeoutMs: msToNumber(e.COUNTERSIGN_PREDICATE_TIMEOUT as never),
    ...linksOf(e),
    ...(e.COUNTERSIGN_LINK_SECRET ? { linkSecret: e.COUNTERSIGN_LINK_SECRET } : {}),
    grantsWorkflowId: e.COUNTERSIGN_GRANTS_WORKFLOW_ID,
    sessionMaxItems: e.COUNTERSIGN_SESSION_MAX_ITEMS,
    ...(e.COUNTERSIGN_CODEC_TOKEN ? { codecToken: e.COUNTERSIGN_CODEC_TOKEN } : {}),
    ...(e.COUNTERSIGN_SERVE_TOKENS ? { serveTokens: e.COUNTERSIGN_SERVE_TOKENS } : {}),
    ...(e.COUNTERSIGN_GATEWAY_TOKENS ? { gatewayTokens: e.COUNTERSIGN_GATEWAY_TOKENS } : {}),
    ...(e.COUNTERSIGN_SLACK_SIGNING_SECRET ? { slackSigningSecret: e.COUNTERSIGN_SLACK_SIGNING_SECRET } : {}),
    ...(e.COUNTERSIGN_SLACK_USERS ? { slackUsersFile: e.COUNTERSIGN_SLACK_USERS } : {}),
    mixedScriptNames: e.COUNTERSIGN_MIXED_SCRIPT_NAMES === 'true',
    approverJwtMaxLifetimeMs: msToNumber(e.COUNTERSIGN_APPROVER_JWT_MAX_LIFETIME as never),
    signInSessionTtlMs: msToNumber(e.COUNTERSIGN_SIGN_IN_SESSION_TTL as never),
    debug: Boolean(e.COUNTERSIGN_DEBUG),
    dev,
  };
}

function ledgerCheckpointsOf(e: ProductEnv): Pick<CountersignConfig, 'ledgerCheckpoints'> {
  if (!e.COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL) return {};
  const missing = (['COUNTERSIGN_LEDGER_WITNESS', 'COUNTERSIGN_LEDGER_CHECKPOINT_KEY'] as const).filter((n) => !e[n]);
  if (missing.length)
    throw new ConfigError(
      `COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL is set but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not: a checkpoint needs a witness to keep it and a key to sign it (countersign keys generate ledger-checkpoint)`,
    );
  return {
    ledgerCheckpoints: {
      intervalMs: msToNumber(e.COUNTERSIGN_LEDGER_CHECKPOINT_INTERVAL as never),
      witness: e.COUNTERSIGN_LEDGER_WITNESS!,
      keyFile: e.COUNTERSIGN_LEDGER_CHECKPOINT_KEY!,
    },
  };
}

function linksOf(e: ProductEnv): Pick<CountersignConfig, 'links'> {
  if (!e.COUNTERSIGN_PUBLIC_URL) return {};
  if (!e.COUNTERSIGN_LINK_SECRET)
    throw new ConfigError(
      'COUNTERSIGN_PUBLIC_URL is set but COUNTERSIGN_LINK_SECRET is not: set the same secret (32+ characters) on the workers and on countersign serve',
    );
  return {
    links: {
      publicUrl: e.COUNTERSIGN_PUBLIC_URL,
      secret: e.COUNTERSIGN_LINK_SECRET,
      maxTtlSeconds: e.COUNTERSIGN_LINK_TTL,
    },
  };
}

function gitCommit(): string | undefined {
  try {
    return (
      execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
        cwd: __dirname,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

function deploymentOf(
  name: string,
  buildId: string | undefined,
  behavior: 'auto-upgrade' | 'pinned',
): NonNullable<CountersignConfig['deployment']> {
  const id = buildId ?? gitCommit();
  if (!id)
    throw new ConfigError(
      'COUNTERSIGN_DEPLOYMENT_NAME is set but there is no build id: set COUNTERSIGN_BUILD_ID (no git commit to default to)',
    );
  return { name, buildId: id, behavior: behavior === 'pinned' ? 'PINNED' : 'AUTO_UPGRADE' };
}

function payloadStorageOf(e: ProductEnv): PayloadStorageSettings {
  const thresholdBytes = e.COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES;
  if (e.COUNTERSIGN_PAYLOAD_STORAGE === 'off') return { kind: 'off' };
  if (e.COUNTERSIGN_PAYLOAD_STORAGE === 'file') return { kind: 'file', dir: e.COUNTERSIGN_PAYLOAD_DIR, thresholdBytes };
  if (!e.COUNTERSIGN_PAYLOAD_S3_BUCKET)
    throw new ConfigError(
      'COUNTERSIGN_PAYLOAD_STORAGE is s3 but COUNTERSIGN_PAYLOAD_S3_BUCKET is not set: name the bucket',
    );
  const region = e.COUNTERSIGN_PAYLOAD_S3_REGION ?? e.AWS_REGION;
  return {
    kind: 's3',
    bucket: e.COUNTERSIGN_PAYLOAD_S3_BUCKET,
    thresholdBytes,
    ...(e.COUNTERSIGN_PAYLOAD_S3_ENDPOINT ? { endpoint: e.COUNTERSIGN_PAYLOAD_S3_ENDPOINT } : {}),
    ...(region ? { region } : {}),
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
