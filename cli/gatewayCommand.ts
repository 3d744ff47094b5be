// `countersign gateway --config <file>`: the MCP gateway (gateway/), an MCP server in front of MCP servers whose
// gated calls wait durably for a person. Over Streamable HTTP it prints its URL once ready; over stdio (--stdio)
// stdout is the MCP session's, so its lines go to stderr. A bad config or option is one line and exit 2.
import type { Command } from 'commander';
import { durationMs, durationSchema } from '../contract/approvalPolicy';
import { UsageError } from './usageErrors';
import { print } from './terminalOutput';

interface GatewayCommandOptions {
  config: string;
  stdio?: boolean;
  host: string;
  port: number;
  wait: string;
  requesterJwks?: string;
  requesterIssuer?: string;
  requesterAudience?: string;
  requesterClaim?: string;
  resource?: string;
}

const DEFAULT_PORT = 8235;

function portOf(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port ${v}: must be a port number (0–65535)`);
  return n;
}

export function addGatewayCommand(program: Command): void {
  program
    .command('gateway')
    .description(
      'an MCP server in front of MCP servers: tools the config gates wait durably for a person (pending, approve, the inbox), the rest pass through',
    )
    .requiredOption('--config <file>', 'the gateway config (JSON): name, servers, tools (see docs/mcp-gateway.md)')
    .option('--stdio', 'serve MCP over stdio instead of Streamable HTTP (logs on stderr)')
    .option(
      '--host <addr>',
      'address to listen on (not loopback: only with --requester-jwks or COUNTERSIGN_GATEWAY_TOKENS)',
      '127.0.0.1',
    )
    .option('--port <n>', 'port', portOf, DEFAULT_PORT)
    .option('--wait <duration>', 'how long a call that is not a task waits for its decision', '5m')
    .option(
      '--requester-jwks <file-or-url>',
      "your authorization server's public keys (a JWKS file or an https URL): every HTTP request then needs a bearer JWT it signed, whose subject is the requester",
    )
    .option(
      '--requester-issuer <iss>',
      'the authorization server the tokens come from (required with --requester-jwks)',
    )
    .option('--requester-audience <aud>', 'the audience the tokens must be for (default: the --resource URL)')
    .option('--requester-claim <claim>', 'the token claim naming the requester', 'sub')
    .option(
      '--resource <url>',
      "the gateway's MCP URL as clients reach it, which tokens are issued for (default: the URL it listens at; required off loopback)",
    )
    .action((o: GatewayCommandOptions) => gateway(o));
}

async function gateway(o: GatewayCommandOptions): Promise<void> {
  if (!durationSchema.safeParse(o.wait).success)
    throw new UsageError(`--wait ${o.wait}: must be a duration such as "30s", "5m" or "1h"`);
  // --resource also goes with COUNTERSIGN_GATEWAY_TOKENS alone: checked where the settings are read (checkAuth).
  const orphan = (['requesterIssuer', 'requesterAudience'] as const).find((k) => o[k] !== undefined);
  if (orphan && !o.requesterJwks)
    throw new UsageError(
      `--${orphan.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --requester-jwks <file or https URL>: the keys its tokens are verified with`,
    );
  const { startGateway } = require('../gateway/gatewayProcess') as typeof import('../gateway/gatewayProcess');
  const say = o.stdio ? (line: string) => console.error(line) : print;
  const handle = await startGateway({
    config: o.config,
    stdio: o.stdio ?? false,
    host: o.host,
    port: o.port,
    waitMs: durationMs(o.wait),
    ...(o.requesterJwks || o.resource
      ? {
          auth: {
            ...(o.requesterJwks
              ? { jwks: o.requesterJwks, issuer: o.requesterIssuer ?? '', claim: o.requesterClaim ?? 'sub' }
              : {}),
            ...(o.requesterAudience ? { audience: o.requesterAudience } : {}),
            ...(o.resource ? { resource: o.resource } : {}),
          },
        }
      : {}),
    log: (line) => console.error(line),
  }).catch((err: Error) => {
    // The config, and the upstreams it names, are the user's input: exit 2. Temporal out of reach stays 1.
    if (err.name === 'ConfigError' && /^(gateway|--|COUNTERSIGN_GATEWAY_TOKENS)/.test(err.message))
      throw new UsageError(err.message);
    throw err;
  });
  say(handle.url ? `MCP gateway: ${handle.url}` : `MCP gateway on stdio (task queue ${handle.taskQueue})`);
  if (handle.url) {
    // The first line stays as it was (scripts wait on it); the same server also answers hooks and the approvals API.
    const { CLAUDE_CODE_HOOK_PATH, MCP_PATH } =
      require('../gateway/gatewayTransports') as typeof import('../gateway/gatewayTransports');
    const { APPROVAL_REQUESTS_PATH } =
      require('../gateway/approvalRequests') as typeof import('../gateway/approvalRequests');
    const base = handle.url.endsWith(MCP_PATH) ? handle.url.slice(0, -MCP_PATH.length) : handle.url;
    say(`Claude Code hook: ${base}${CLAUDE_CODE_HOOK_PATH}`);
    say(`Approvals API: ${base}${APPROVAL_REQUESTS_PATH}`);
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    if (o.stdio) process.stdin.once('end', () => resolve()); // the client closed the session
  });
  await handle.close();
}
