// The gateway as a transparent proxy, in front of the reference "everything" server over Streamable HTTP: what a
// client reads through the gateway is what it reads from the server directly (tools with their schemas,
// annotations and output schemas; ungated calls; resources; prompts; completion; the logging level), and an ungated
// call adds little to a direct one (measured and printed; bench/ has the figure that counts). What the server says
// besides its answers reaches the clients it concerns: an ungated call's progress with the client's own token, log
// messages at each session's level, a resource's updates to the sessions that subscribed to it.
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  type LoggingLevel,
  LoggingLevelSchema,
  LoggingMessageNotificationSchema,
  type Progress,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import {
  gatewayFiles,
  mcpClient,
  startGatewayProcess,
  type RunningGateway,
  startEverythingServer,
} from '../support/gatewayProcess';
import type { Spawned } from '../support/processes';

jest.setTimeout(240_000);

let everything: Spawned;
let gateway: RunningGateway;
let direct: Client;
let through: Client;

beforeAll(async () => {
  const upstream = await startEverythingServer();
  everything = upstream.process;
  const url = upstream.url;
  const setup = gatewayFiles();
  const tools = { '*': { needsApproval: false } }; // every tool passes through
  writeFileSync(setup.config, JSON.stringify({ name: setup.name, servers: { everything: { url } }, tools }));
  gateway = await startGatewayProcess(setup.config);
  [direct, through] = await Promise.all([mcpClient(url), mcpClient(gateway.url)]);
});
afterAll(async () => {
  await Promise.all([direct?.close(), through?.close()]);
  await gateway?.stop();
  everything?.kill('SIGTERM');
  await everything?.exited;
});

test('tools/list: the same tools, schemas, annotations and output schemas', async () => {
  const [a, b] = await Promise.all([direct.listTools(), through.listTools()]);
  expect(b.tools.map((t) => t.name).sort()).toEqual(a.tools.map((t) => t.name).sort());
  for (const t of a.tools) {
    const mine = b.tools.find((x) => x.name === t.name)!;
    const { execution: _, ...theirs } = t;
    expect({ ...mine, execution: undefined }).toEqual({ ...theirs, execution: undefined });
  }
});

test('ungated calls, structured content included, answer as the server does', async () => {
  for (const [name, args] of [
    ['echo', { message: 'hi' }],
    ['get-sum', { a: 2, b: 3 }],
    ['get-structured-content', { location: 'New York' }],
  ] as const) {
    const tools = (await direct.listTools()).tools.map((t) => t.name);
    if (!tools.includes(name)) continue;
    expect(await through.callTool({ name, arguments: args })).toEqual(await direct.callTool({ name, arguments: args }));
  }
});

test('resources, templates, prompts, completion and logging pass through', async () => {
  const listed = await direct.listResources();
  expect((await through.listResources()).resources).toEqual(listed.resources);
  expect((await through.listResourceTemplates()).resourceTemplates).toEqual(
    (await direct.listResourceTemplates()).resourceTemplates,
  );
  const uri = listed.resources[0]!.uri;
  expect(await through.readResource({ uri })).toEqual(await direct.readResource({ uri }));
  const prompts = await direct.listPrompts();
  expect((await through.listPrompts()).prompts).toEqual(prompts.prompts);
  expect(await through.getPrompt({ name: 'simple-prompt' })).toEqual(await direct.getPrompt({ name: 'simple-prompt' }));
  const complete = {
    ref: { type: 'ref/prompt' as const, name: 'completable-prompt' },
    argument: { name: 'department', value: 'E' },
  };
  expect(await through.complete(complete)).toEqual(await direct.complete(complete));
  expect(await through.setLoggingLevel('warning')).toEqual({});
});

test('an ungated call adds little over calling the server directly', async () => {
  const p50 = async (client: Client) => {
    const times: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t0 = performance.now();
      await client.callTool({ name: 'echo', arguments: { message: `m${i}` } });
      times.push(performance.now() - t0);
    }
    return times.sort((x, y) => x - y)[20]!;
  };
  await p50(through); // warm
  const [d, g] = [await p50(direct), await p50(through)];
  console.log(`ungated echo p50: direct ${d.toFixed(2)} ms, through the gateway ${g.toFixed(2)} ms`);
  expect(g - d).toBeLessThan(50); // loose under a shared machine's load; the bench holds the 5 ms target
});

const until = async (done: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; !done() && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
};

test("an ungated call's progress reaches the client with its own token, as from the server directly", async () => {
  const heard = async (client: Client) => {
    const got: Progress[] = [];
    const args = { duration: 1, steps: 3 };
    const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: args }, undefined, {
      onprogress: (p) => got.push(p),
    });
    expect(result.isError).toBeFalsy();
    return got;
  };
  const [d, g] = [await heard(direct), await heard(through)];
  expect(g).toEqual(d);
  expect(g.map((p) => [p.progress, p.total])).toEqual([
    [1, 3],
    [2, 3],
    [3, 3],
  ]);
});

test("the server's log messages reach each session at or above the level it set", async () => {
  const [verbose, quiet] = [await mcpClient(gateway.url), await mcpClient(gateway.url)];
  const heard: Record<string, LoggingLevel[]> = { verbose: [], quiet: [] };
  for (const [name, c] of [
    ['verbose', verbose],
    ['quiet', quiet],
  ] as const)
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void heard[name]!.push(n.params.level));
  await verbose.setLoggingLevel('debug');
  await quiet.setLoggingLevel('error');
  // The server logs to the gateway's connection, at random levels, at once and every 5 s.
  await verbose.callTool({ name: 'toggle-simulated-logging', arguments: {} });
  try {
    await until(() => heard.verbose!.length >= 3, 20_000);
  } finally {
    await verbose.callTool({ name: 'toggle-simulated-logging', arguments: {} }); // off again
  }
  expect(heard.verbose!.length).toBeGreaterThanOrEqual(3);
  const severity = (l: LoggingLevel) => LoggingLevelSchema.options.indexOf(l);
  expect(heard.quiet!.every((l) => severity(l) >= severity('error'))).toBe(true);
  expect(heard.quiet).toEqual(heard.verbose!.filter((l) => severity(l) >= severity('error')));
  await Promise.all([verbose.close(), quiet.close()]);
});

test('a resource update reaches the sessions that subscribed to it through the gateway, and only those', async () => {
  expect(through.getServerCapabilities()?.resources).toEqual({ subscribe: true, listChanged: true });
  const [watcher, other] = [await mcpClient(gateway.url), await mcpClient(gateway.url)];
  const { uri } = (await watcher.listResources()).resources[0]!;
  const updates: Record<string, string[]> = { watcher: [], other: [] };
  watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.watcher!.push(n.params.uri));
  other.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.other!.push(n.params.uri));
  expect(await watcher.subscribeResource({ uri })).toEqual({});
  await other.callTool({ name: 'toggle-subscriber-updates', arguments: {} }); // at once, then every 5 s
  try {
    await until(() => updates.watcher!.length > 0, 10_000);
    expect(updates.watcher![0]).toBe(uri);
    await watcher.unsubscribeResource({ uri });
    const seen = updates.watcher!.length;
    await new Promise((r) => setTimeout(r, 6_000)); // one more round of updates: none for it now
    expect(updates.watcher).toHaveLength(seen);
  } finally {
    await other.callTool({ name: 'toggle-subscriber-updates', arguments: {} }); // off again
  }
  expect(updates.other).toEqual([]);
  await Promise.all([watcher.close(), other.close()]);
});
