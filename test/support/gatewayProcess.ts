// The MCP gateway as a person runs it (`countersign gateway --config <file>`, a child process against the tests'
// dev server) in front of the reference filesystem server on a temporary folder, and an MCP SDK client of it.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as TemporalClient, Connection } from '@temporalio/client';
import { CLI_PATH, cliEnv } from './countersignCli';
import { freePort, spawnProcess, type Spawned } from './processes';
import { projectRoot } from './toolchain';
import { testAddress } from './testServer';

export const FILESYSTEM_SERVER = join(
  projectRoot,
  'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js',
);

export const EVERYTHING_SERVER = join(
  projectRoot,
  'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

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

/** `countersign gateway --config <config>` on a free port (or the `--port` in `args`), once it printed its URL. */
export async function startGatewayProcess(
  config: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningGateway> {
  const given = args.indexOf('--port');
  const port = given >= 0 ? args[given + 1]! : String(await freePort());
  const portArgs = given >= 0 ? [] : ['--port', port];
  const p = spawnProcess(process.execPath, [CLI_PATH, 'gateway', '--config', config, ...portArgs, ...args], {
    cwd: projectRoot,
    env: cliEnv(env),
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  await p.waitFor(new RegExp(`^MCP gateway: ${url.replace(/\./g, '\\.')}$`, 'm'), 120_000); // --port's URL
  return {
    process: p,
    url,
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

/**
 * How a gated call's run went upstream: the `callGatewayTool` activities its history scheduled, and the most
 * attempts any of them allowed (one activity of one attempt is one call upstream).
 */
export async function upstreamCalls(workflowId: string): Promise<{ scheduled: number; maxAttempts: number }> {
  const connection = await Connection.connect({ address: testAddress() });
  try {
    const { events } = await new TemporalClient({ connection }).workflow.getHandle(workflowId).fetchHistory();
    const calls = (events ?? [])
      .map((e) => e.activityTaskScheduledEventAttributes)
      .filter((a) => a?.activityType?.name === 'callGatewayTool');
    return {
      scheduled: calls.length,
      maxAttempts: Math.max(0, ...calls.map((a) => a!.retryPolicy?.maximumAttempts ?? 0)),
    };
  } finally {
    await connection.close();
  }
}

/**
 * The process ids of the running processes whose command line holds `text` (an upstream's unique folder, or its
 * script), in process group `group` when given (a gateway's: spawnProcess starts each in a group of its own).
 */
export function processesWith(text: string, group?: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        if (!readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').includes(text)) return false;
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8'); // pid (comm) state ppid pgrp …
        return group === undefined || Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === group;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}
