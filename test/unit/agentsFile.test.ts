// COUNTERSIGN_AGENTS_FILE: a JSON file of agents (MCP servers, approval rules) parses into agents as defineAgent
// builds them, and every mistake in it is refused with one line naming the file, the field and what is wrong.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentsFile } from '../../agents/agentsFile';
import { mcpApproval } from '../../agents/mcpServers';
import { ConfigError, loadConfig } from '../../temporal.config';
import { servedAgents } from '../../worker/agentsModule';

const dir = mkdtempSync(join(tmpdir(), 'countersign-agents-file-'));
let n = 0;
/** A file in its own folder; `text` as is, anything else as JSON. */
function agentsFile(content: unknown): string {
  const folder = join(dir, String(n++));
  mkdirSync(folder);
  const path = join(folder, 'agents.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

const example = {
  agents: [
    {
      name: 'db-ops',
      version: '1',
      instructions: 'You look after the database.',
      model: 'gpt-4.1',
      mcpServers: [
        {
          name: 'db',
          command: 'node',
          args: ['server.mjs'],
          env: { K: 'V' },
          cwd: 'servers',
          requireApproval: { always: { toolNames: ['drop_table'] }, never: { toolNames: ['list_tables'] } },
        },
        { name: 'docs', url: 'http://127.0.0.1:9000/mcp', headers: { x: 'y' }, requireApproval: 'never' },
      ],
      approvalTimeout: '24h',
      onTimeout: 'reject',
    },
  ],
};

test('the example parses into agents with the servers, rules and policy it declares', () => {
  const path = agentsFile(example);
  const [agent, ...more] = loadAgentsFile(path);
  expect(more).toEqual([]);
  expect(agent!.snapshot()).toEqual({
    name: 'db-ops',
    version: '1',
    instructions: 'You look after the database.',
    model: 'gpt-4.1',
    policy: { approvalTimeout: '24h', onTimeout: 'reject' },
    tools: [],
  });
  expect(agent!.mcpServers).toEqual([
    { ...example.agents[0]!.mcpServers[0], cwd: join(path, '..', 'servers') }, // relative to the file's folder
    example.agents[0]!.mcpServers[1],
  ]);
  const [db, docs] = agent!.mcpServers;
  expect(['drop_table', 'list_tables', 'fail_always'].map((t) => mcpApproval(db!, t))).toEqual([
    'always',
    'never',
    'always',
  ]);
  expect(mcpApproval(docs!, 'anything')).toBe('never');
});

test('defaults: version 1, no servers; a stdio server runs in the file’s folder; handoffs become transfer tools', () => {
  const path = agentsFile({
    agents: [
      { name: 'triage', instructions: 'Route it.', handoffs: ['db-ops'] },
      {
        name: 'db-ops',
        instructions: 'x',
        mcpServers: [
          { name: 'db', command: 'node', tools: ['list_tables'], timeoutMs: 5000, approvers: ['ann'] },
          { name: 'abs', command: 'node', cwd: '/srv' },
        ],
      },
    ],
  });
  const [triage, dbOps] = loadAgentsFile(path);
  expect(triage!.snapshot()).toMatchObject({
    version: '1',
    tools: [{ name: 'transfer_to_db_ops', handoffTo: 'db-ops', approval: 'never' }],
  });
  expect(triage!.mcpServers).toEqual([]);
  expect(dbOps!.mcpServers).toEqual([
    { name: 'db', command: 'node', cwd: join(path, '..'), tools: ['list_tables'], timeoutMs: 5000, approvers: ['ann'] },
    { name: 'abs', command: 'node', cwd: '/srv' },
  ]);
});

const server = { name: 'db', command: 'node' };
const agentWith = (fields: Record<string, unknown>) => ({ agents: [{ name: 'db-ops', instructions: 'x', ...fields }] });

test.each<[string, unknown, string]>([
  [
    'wrong requireApproval',
    agentWith({ mcpServers: [{ ...server, requireApproval: 'sometimes' }] }),
    'agents[0].mcpServers[0].requireApproval: must be "always", "never", true, false or { always, never }',
  ],
  [
    'a tool list that is not { toolNames }',
    agentWith({ mcpServers: [{ ...server, requireApproval: { always: ['drop_table'] } }] }),
    'agents[0].mcpServers[0].requireApproval.always: must be an object, not an array',
  ],
  [
    'an unknown key in an agent',
    agentWith({ colour: 'red' }),
    'agents[0].colour: unknown field (known: name, version, instructions, model, mcpServers, handoffs, tools, hostedTools, toolUseBehavior, resetToolChoice, onMaxTurns, conversation, approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo, approvers, quorum, excludeRequester, signedDecisions, maxExtension, remindBeforeExpiry, grantable)',
  ],
  [
    'an unknown key in a server',
    agentWith({ mcpServers: [{ name: 'db', comand: 'node' }] }),
    'agents[0].mcpServers[0].comand: unknown field (known: name, command, args, env, cwd, url, headers, requireApproval, tools, preview, timeoutMs, approvalTimeout, onTimeout, remindEvery, escalateAfter, escalateTo, approvers, quorum, excludeRequester, signedDecisions, maxExtension, remindBeforeExpiry, grantable)',
  ],
  ['missing instructions', { agents: [{ name: 'db-ops' }] }, 'agents[0].instructions: is required (a string)'],
  [
    'instructions of the wrong type',
    { agents: [{ name: 'db-ops', instructions: 42 }] },
    'agents[0].instructions: must be a string, not a number',
  ],
  [
    'both command and url',
    agentWith({ mcpServers: [{ ...server, url: 'http://127.0.0.1:9000/mcp' }] }),
    'agents[0].mcpServers[0]: give either command (stdio) or url (Streamable HTTP), not both',
  ],
  [
    'neither command nor url',
    agentWith({ mcpServers: [server, { name: 'docs' }] }),
    'agents[0].mcpServers[1]: give command (stdio) or url (Streamable HTTP)',
  ],
  [
    'headers on a stdio server',
    agentWith({ mcpServers: [{ ...server, headers: { x: 'y' } }] }),
    'agents[0].mcpServers[0].headers: only for a Streamable HTTP server (url)',
  ],
  [
    'a URL that is not http(s)',
    agentWith({ mcpServers: [{ name: 'docs', url: 'ftp://example.com/mcp' }] }),
    'agents[0].mcpServers[0].url: must be an http(s) URL such as http://127.0.0.1:9000/mcp',
  ],
  [
    'a bad duration',
    agentWith({ approvalTimeout: 'soon' }),
    'agents[0].approvalTimeout: must be a duration such as "30s", "15m", "24h" or "7d"',
  ],
  [
    'a bad onTimeout on a server',
    agentWith({ mcpServers: [{ ...server, onTimeout: 'explode' }] }),
    'agents[0].mcpServers[0].onTimeout: must be "reject", "approve" or "fail"',
  ],
  [
    'a non-string env value',
    agentWith({ mcpServers: [{ ...server, env: { 'X-Y': 3 } }] }),
    'agents[0].mcpServers[0].env["X-Y"]: must be a string, not a number',
  ],
  ['no agents list', { agent: [] }, 'agents: is required (an array)'],
  [
    'duplicate server names',
    agentWith({ mcpServers: [server, { name: 'db', url: 'http://127.0.0.1:9000/mcp' }] }),
    'agents[0]: two MCP servers are named "db"',
  ],
  [
    'a tool both always and never',
    agentWith({
      mcpServers: [{ ...server, requireApproval: { always: { toolNames: ['x'] }, never: { toolNames: ['x'] } } }],
    }),
    'agents[0]: MCP server "db": x cannot be both always and never approved',
  ],
  [
    'an agent twice',
    {
      agents: [
        { name: 'a', instructions: 'x' },
        { name: 'a', instructions: 'y' },
      ],
    },
    'agents[1]: agents[0] is already agent "a" version 1; give this one another name or version',
  ],
  [
    'invalid JSON (a trailing comma)',
    '{\n  "agents": [\n    { "name": "a", }\n  ]\n}',
    'invalid JSON at line 3 column 20: Expected double-quoted property name',
  ],
  [
    'invalid JSON (a bare word)',
    '{\n  "agents": [ { "name": db } ]\n}',
    'invalid JSON at line 2 column 25: unexpected "d"',
  ],
  ['invalid JSON (cut short)', '{ "agents": [', 'invalid JSON at line 1 column 14: Unexpected end of JSON input'],
])('%s is refused with one line', (_what, content, line) => {
  const path = agentsFile(content);
  const refusal = refusalOf(() => loadAgentsFile(path));
  expect(refusal).toBeInstanceOf(ConfigError);
  expect(refusal.message).toBe(`COUNTERSIGN_AGENTS_FILE ${path}: ${line}`);
});

function refusalOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('not refused');
}

test('a missing file is refused with one line, its path resolved against cwd', () => {
  expect(() => loadAgentsFile('nope/agents.json', dir)).toThrow(
    new ConfigError(
      `COUNTERSIGN_AGENTS_FILE ${join(dir, 'nope/agents.json')}: no such file; point it at a JSON file such as { "agents": [ … ] }`,
    ),
  );
});

test('COUNTERSIGN_AGENTS_FILE is config.agentsFile; servedAgents adds the file’s agents and refuses clashes and unknown handoffs', async () => {
  const base = { TEMPORAL_CONFIG_FILE: '/nonexistent/countersign-test.toml' };
  const path = agentsFile(example);
  expect(loadConfig({ ...base, COUNTERSIGN_AGENTS_FILE: path }).agentsFile).toBe(path);
  expect(loadConfig({ ...base }).agentsFile).toBeUndefined();
  expect((await servedAgents({ agentsFile: path })).names()).toEqual([
    'email-assistant',
    'weather-assistant',
    'db-ops',
  ]);

  const clash = agentsFile({ agents: [{ name: 'weather-assistant', instructions: 'x' }] });
  await expect(servedAgents({ agentsFile: clash })).rejects.toThrow(
    new ConfigError(
      `COUNTERSIGN_AGENTS_FILE ${clash}: agents[0]: agent "weather-assistant" version 1 is already served (a demo agent or one of COUNTERSIGN_AGENTS_MODULE's); give it another name or version`,
    ),
  );
  const nowhere = agentsFile({
    agents: [{ name: 'triage', instructions: 'x', handoffs: ['weather-assistant', 'nobody'] }],
  });
  await expect(servedAgents({ agentsFile: nowhere })).rejects.toThrow(
    new ConfigError(
      `COUNTERSIGN_AGENTS_FILE ${nowhere}: agents[0].handoffs[1]: no agent named "nobody" is served (served: email-assistant, weather-assistant, triage)`,
    ),
  );
});
