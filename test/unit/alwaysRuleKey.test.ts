// The always-rule key, built and read in one place: `agent/tool`, `agent/mcp:server/tool`, and the tool name a
// parent hands a sub-run (what follows the agent), read back to what it was built from.
import {
  alwaysRuleKey,
  readAlwaysRuleKey,
  readRuleToolName,
  ruleToolName,
  ruleToolNameOf,
} from '../../contract/alwaysRuleKey';

test("a plain tool and an MCP server's tool", () => {
  expect(alwaysRuleKey({ agent: 'clerk', tool: 'send_email' })).toBe('clerk/send_email');
  expect(alwaysRuleKey({ agent: 'clerk', tool: 'delete', mcpServer: 'files' })).toBe('clerk/mcp:files/delete');
  expect(ruleToolName('send_email')).toBe('send_email');
  expect(ruleToolName('delete', 'files')).toBe('mcp:files/delete');
});

test('read back, a key is what it was built from', () => {
  for (const target of [
    { agent: 'clerk', tool: 'send_email' },
    { agent: 'clerk', tool: 'delete', mcpServer: 'files' },
    { agent: 'email-assistant', tool: 'x_1', mcpServer: 'my-server' },
  ]) {
    const key = alwaysRuleKey(target);
    expect(readAlwaysRuleKey(key)).toEqual({ ...target, toolName: key.slice(target.agent.length + 1) });
    expect(readRuleToolName(ruleToolName(target.tool, target.mcpServer))).toEqual(
      target.mcpServer ? { tool: target.tool, mcpServer: target.mcpServer } : { tool: target.tool },
    );
  }
  expect(readAlwaysRuleKey('no-slash')).toBeUndefined();
  for (const odd of ['mcp:/x', 'mcp:x', 'a/b', 'mcp:s/t/u'])
    expect(alwaysRuleKey({ agent: 'clerk', ...readRuleToolName(odd) })).toBe(`clerk/${odd}`);
});

test("a handed-down tool name makes the same key under the sub-run's agent", () => {
  const parent = alwaysRuleKey({ agent: 'lead', tool: 'delete', mcpServer: 'files' });
  const handed = readAlwaysRuleKey(parent)!.toolName;
  expect(handed).toBe('mcp:files/delete');
  expect(alwaysRuleKey({ agent: 'helper', ...readRuleToolName(handed) })).toBe('helper/mcp:files/delete');
});

test("an agent's own rules, by what follows its name", () => {
  expect(ruleToolNameOf('clerk/send_email', 'clerk')).toBe('send_email');
  expect(ruleToolNameOf('clerk/mcp:files/delete', 'clerk')).toBe('mcp:files/delete');
  expect(ruleToolNameOf('clerk2/send_email', 'clerk')).toBeUndefined();
  expect(ruleToolNameOf('team/a/send_email', 'team/a')).toBe('send_email');
});
