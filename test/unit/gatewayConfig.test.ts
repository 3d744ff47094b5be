// The MCP gateway's config and gate, alone: what the file may say (one line for each mistake, naming the field), and
// which tools a person decides: the file's terms, else "*", else the upstream's annotations, failing closed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { loadGatewayConfig, parseGatewayConfig } from '../../gateway/gatewayConfig';
import { callerMayDecide, gateOf, termsOf } from '../../gateway/gating';

const tool = (name: string, annotations?: Tool['annotations']): Tool => ({
  name,
  inputSchema: { type: 'object' },
  ...(annotations ? { annotations } : {}),
});
const problem = (data: unknown) => {
  try {
    parseGatewayConfig(data);
    return 'accepted';
  } catch (err) {
    return (err as Error).message;
  }
};

test('a stdio and an HTTP server, terms per tool and "*"; a stdio cwd is resolved against the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
  const file = join(dir, 'g.json');
  writeFileSync(
    file,
    JSON.stringify({
      name: 'files',
      servers: {
        fs: { command: 'npx', args: ['x'], cwd: 'sub' },
        web: { url: 'http://127.0.0.1:9000/mcp', prefix: 'web_' },
      },
      tools: {
        write_file: { needsApproval: true, approvers: ['ann', 'bob'], quorum: 2 },
        '*': { approvalTimeout: '1h' },
      },
    }),
  );
  const config = loadGatewayConfig(file);
  expect(config.servers.fs).toEqual({ command: 'npx', args: ['x'], cwd: join(dir, 'sub') });
  expect(config.servers.web).toEqual({ url: 'http://127.0.0.1:9000/mcp', prefix: 'web_' });
  expect(config.tools.write_file).toEqual({ needsApproval: true, approvers: ['ann', 'bob'], quorum: 2 });
});

test.each([
  [{ servers: {} }, 'gateway config: name: is required (a string)'],
  [{ name: 'has space', servers: {} }, 'gateway config: name: must be a plain name (letters, digits, _ . @ -)'],
  [{ name: 'x', servers: { fs: { args: [] } } }, 'gateway config: servers.fs.command: is required (a string)'],
  [
    { name: 'x', servers: { fs: { url: 'ftp://x' } } },
    'gateway config: servers.fs.url: must be an http(s) URL such as http://127.0.0.1:9000/mcp',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { needsApproval: 'audit' } } },
    'gateway config: tools.w.needsApproval: must be true, false, { "when": [conditions] } or { "unless": [conditions] } at the gateway, not "audit"',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { needsApproval: 'yes' } } },
    'gateway config: tools.w.needsApproval: must be true, false, { "when": [conditions] } or { "unless": [conditions] }',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { needsApproval: { when: [] } } } },
    'gateway config: tools.w.needsApproval.when: must list at least one condition',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { needsApproval: { when: [{ argument: 'path' }] } } } },
    'gateway config: tools.w.needsApproval.when[0]: must test the argument: give "matches", "glob", "above" or "below"',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { needsApproval: { when: [{ argument: 'n', above: '100' }] } } } },
    'gateway config: tools.w.needsApproval.when[0].above: must be a number, not a string',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { needsApproval: { unless: [{ argument: 'c', matches: '(' }] } } } },
    'gateway config: tools.w.needsApproval.unless[0].matches: must be a regular expression such as "^(rm|terraform apply)"',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { needsApproval: { when: [{ argument: 'p', glob: '/a/**' }], also: 1 } } } },
    'gateway config: tools.w.needsApproval.also: unknown field (known: when)',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { approvalTimeout: 'soon' } } },
    'gateway config: tools.w.approvalTimeout: must be a duration such as "30s", "15m", "24h" or "7d"',
  ],
  [
    { name: 'x', servers: {}, tools: { w: { approvers: ['ann'], quorum: 2 } } },
    'gateway config: tools.w.quorum: is larger than the list of approvers',
  ],
])('refused in one line: %j', (data, line) => {
  expect(problem(data)).toBe(line);
});

test('a file that is not there, or not JSON, is one line naming it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
  expect(() => loadGatewayConfig(join(dir, 'none.json'))).toThrow(/^gateway config \S+none\.json: no such file/);
  writeFileSync(join(dir, 'bad.json'), '{ "name": ');
  expect(() => loadGatewayConfig(join(dir, 'bad.json'))).toThrow(
    /^gateway config \S+bad\.json: invalid JSON at line 1/,
  );
});

describe('the gate', () => {
  const config = parseGatewayConfig({
    name: 'g',
    servers: {},
    tools: {
      read_file: { needsApproval: true },
      write_file: { needsApproval: false },
      move_file: { approvers: ['ann'] },
    },
  });
  test.each([
    ['the file says yes, whatever the hints', tool('read_file', { readOnlyHint: true }), true],
    ['the file says no, whatever the hints', tool('write_file', { destructiveHint: true }), false],
    ['terms without needsApproval: the hints decide', tool('move_file', { readOnlyHint: true }), false],
    ['not named, no hints: a person decides', tool('delete_file'), true],
    ['not named, destructive: a person decides', tool('delete_file', { destructiveHint: true }), true],
    [
      'not named, not read-only and not destructive: still a person',
      tool('create', { readOnlyHint: false, destructiveHint: false }),
      true,
    ],
    ['not named, read-only: runs at once', tool('list', { readOnlyHint: true }), false],
  ])('%s', (_, t, gated) => {
    expect(gateOf(config, t).gated).toBe(gated);
  });

  test('"*" gives its terms to every tool the file does not name; terms become wait terms once', () => {
    const starred = parseGatewayConfig({
      name: 'g',
      servers: {},
      tools: { '*': { needsApproval: true, approvers: ['ann', 'bob'], excludeRequester: true, approvalTimeout: '1h' } },
    });
    const gate = gateOf(starred, tool('list', { readOnlyHint: true }));
    expect(gate.gated).toBe(true);
    expect(termsOf(gate, 'ann', false)).toEqual({
      approvers: ['ann', 'bob'],
      excludedApprover: 'ann',
      timeout: '1h',
      onTimeout: 'reject',
    });
  });

  test('"$caller" among the approvers is whoever calls: the caller may decide (elicitation), besides the others', () => {
    const config = parseGatewayConfig({
      name: 'g',
      servers: {},
      tools: { mkdir: { needsApproval: true, approvers: ['$caller', 'ops'] } },
    });
    const gate = gateOf(config, tool('mkdir'));
    expect(callerMayDecide(gate)).toBe(true);
    expect(termsOf(gate, 'ann', false).approvers).toEqual(['ann', 'ops']);
    expect(callerMayDecide(gateOf(config, tool('other')))).toBe(false);
  });
});
