// The MCP gateway as a person runs it (`countersign gateway --config <file>`, a child process against the tests'
// dev server) in front of the reference filesystem server on a temporary folder, and an MCP SDK client of it.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI_PATH, cliEnv } from './countersignCli';
import { freePort, spawnProcess, type Spawned } from './processes';
import { projectRoot } from './toolchain';

export const FILESYSTEM_SERVER = join(
  projectRoot,
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);

const EVERYTHING_SERVER = join(projectRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

/** The reference "everything" server over Streamable HTTP on a free port, once it listens: its URL and process. */
export async function startEverythingServer(): Promise<{ url: string; process: Spawned }> {
  const port = await freePort();
  const p = spawnProcess(process.execPath, [EVERYTHING_SERVER, 'streamableHttp'], {
    cwd: projectRoot,
    env: { ...process.env, PORT: String(port) },
  });
  await p.waitFor(/listening on port/);
  return { url: `http://127.0.0.1:${port}/mcp`, process: p };
}

/** A folder the filesystem server serves, and a gateway config in front of it (name unique per call). */
export function gatewayFiles(tools: Record<string, unknown> = { write_file: { needsApproval: true } }) {
  const root = mkdtempSync(join(tmpdir(), 'countersign-gateway-'));
  const files = join(root, 'files');
  mkdirSync(files);
  const name = `files-${randomUUID().slice(0, 8)}`;
  const config = join(root, 'gateway.json');
  const servers = { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, files] } };
  writeFileSync(config, JSON.stringify({ name, servers, tools }));
  return { root, files, config, name };
}

export interface RunningGateway {
  process: Spawned;
  url: string;
  stop(): Promise<void>;
}

/** `countersign gateway --config <config>` on a free port, once it printed its URL. */
export async function startGatewayProcess(
  config: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningGateway> {
  const port = await freePort();
  const p = spawnProcess(process.execPath, [CLI_PATH, 'gateway', '--config', config, '--port', String(port), ...args], {
    cwd: projectRoot,
    env: cliEnv(env),
  });
  await p.waitFor(/MCP gateway: /, 120_000);
  return {
    process: p,
    url: `http://127.0.0.1:${port}/mcp`,
    stop: async () => {
      p.kill('SIGTERM');
      await p.exited;
    },
  };
}

export async function mcpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'gateway-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
