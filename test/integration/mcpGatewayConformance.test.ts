// @modelcontextprotocol/conformance's server scenarios: the gateway in front of the reference everything server
// (Streamable HTTP, every tool passed through) passes every scenario that server passes when asked directly.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  gatewayFiles,
  startGatewayProcess,
  type RunningGateway,
  startEverythingServer,
} from '../support/gatewayProcess';
import type { Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';

jest.setTimeout(240_000);

const CONFORMANCE = join(projectRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
let everything: Spawned;
let gateway: RunningGateway;
let url: string;

beforeAll(async () => {
  const upstream = await startEverythingServer();
  everything = upstream.process;
  url = upstream.url;
  const setup = gatewayFiles();
  const tools = { '*': { needsApproval: false } };
  writeFileSync(setup.config, JSON.stringify({ name: setup.name, servers: { everything: { url } }, tools }));
  gateway = await startGatewayProcess(setup.config);
});
afterAll(async () => {
  await gateway?.stop();
  everything?.kill('SIGTERM');
  await everything?.exited;
});

/** The conformance CLI's output against `target` (all server scenarios, or the given ones). */
async function conformance(target: string, ...args: string[]): Promise<string> {
  const run = await promisify(execFile)(process.execPath, [CONFORMANCE, 'server', '--url', target, ...args], {
    cwd: projectRoot,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout: string }) => err); // it exits 1 when any scenario fails
  return run.stdout;
}

/** The scenarios that pass, from the run's summary (a scenario with any failed check does not). */
const passing = async (target: string) =>
  [...(await conformance(target)).matchAll(/^✓ (\S+): \d+ passed, 0 failed$/gm)].map((m) => m[1]!).sort();

// These call tools the everything server does not have (test_simple_text, test_error_handling). It answers an
// unknown tool with an isError result, which the scenarios accept; the gateway answers it with a JSON-RPC error
// (-32602 Unknown tool), as an unknown tool must be refused before anything is booked or sent.
const UNKNOWN_TOOL_SCENARIOS = {
  'tools-call-simple-text': 'test_simple_text',
  'tools-call-error': 'test_error_handling',
};

test('every scenario the everything server passes directly passes through the gateway', async () => {
  const direct = await passing(url);
  expect(direct.length).toBeGreaterThan(5);
  const through = await passing(gateway.url);
  const missed = direct.filter((s) => !through.includes(s));
  expect(missed.filter((s) => !(s in UNKNOWN_TOOL_SCENARIOS))).toEqual([]);
  // Those two fail through the gateway for that reason alone.
  for (const [scenario, tool] of Object.entries(UNKNOWN_TOOL_SCENARIOS).filter(([s]) => missed.includes(s)))
    expect(await conformance(gateway.url, '--scenario', scenario)).toContain(`MCP error -32602: Unknown tool: ${tool}`);
});
