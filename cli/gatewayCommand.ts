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
    .option('--host <addr>', 'address to listen on (loopback only)', '127.0.0.1')
    .option('--port <n>', 'port', portOf, DEFAULT_PORT)
    .option('--wait <duration>', 'how long a call that is not a task waits for its decision', '5m')
    .action((o: GatewayCommandOptions) => gateway(o));
}

async function gateway(o: GatewayCommandOptions): Promise<void> {
  if (!durationSchema.safeParse(o.wait).success)
    throw new UsageError(`--wait ${o.wait}: must be a duration such as "30s", "5m" or "1h"`);
  const { startGateway } = require('../gateway/gatewayProcess') as typeof import('../gateway/gatewayProcess');
  const say = o.stdio ? (line: string) => console.error(line) : print;
  const handle = await startGateway({
    config: o.config,
    stdio: o.stdio ?? false,
    host: o.host,
    port: o.port,
    waitMs: durationMs(o.wait),
    log: (line) => console.error(line),
  }).catch((err: Error) => {
    // The config, and the upstreams it names, are the user's input: exit 2. Temporal out of reach stays 1.
    if (err.name === 'ConfigError' && /^(gateway|--)/.test(err.message)) throw new UsageError(err.message);
    throw err;
  });
  say(handle.url ? `MCP gateway: ${handle.url}` : `MCP gateway on stdio (task queue ${handle.taskQueue})`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    if (o.stdio) process.stdin.once('end', () => resolve()); // the client closed the session
  });
  await handle.close();
}
