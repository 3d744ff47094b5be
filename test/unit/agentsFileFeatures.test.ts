// The agent features' declarative options in COUNTERSIGN_AGENTS_FILE (issue 33): external tools with JSON-schema
// parameters and strict mode, hosted tools, toolUseBehavior, resetToolChoice, onMaxTurns, a server conversation and
// handoff input filters reach the agent as defineAgent builds them from code; a mistake in any is one line.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAgentsFile } from '../../agents/agentsFile';
import { defineAgent } from '../../agents/defineAgent';
import { defineTool } from '../../agents/defineTool';
import { fileSearchTool, webSearchTool } from '../../agents/hostedTools';

const dir = mkdtempSync(join(tmpdir(), 'countersign-agents-features-'));
let n = 0;
function agentsFile(content: unknown): string {
  const path = join(dir, `agents-${n++}.json`);
  writeFileSync(path, JSON.stringify(content, null, 2));
  return path;
}

const ticketParameters = {
  type: 'object',
  properties: { title: { type: 'string' }, priority: { type: 'integer', minimum: 1, maximum: 3 } },
  required: ['title'],
  additionalProperties: false,
};

const declared = {
  name: 'triage',
  instructions: 'You triage tickets.',
  tools: [
    {
      name: 'open_ticket',
      description: 'Opens a ticket in the tracker',
      parameters: ticketParameters,
      external: true,
      needsApproval: true,
      resultTimeout: '1h',
    },
    { name: 'note', description: 'Adds a note', parameters: { type: 'object' }, external: true, strict: false },
  ],
  hostedTools: [
    { type: 'web_search', searchContextSize: 'low' },
    { type: 'file_search', vectorStoreIds: ['vs_1'], maxNumResults: 3 },
  ],
  toolUseBehavior: { stopAtToolNames: ['open_ticket'] },
  onMaxTurns: 'final_output',
  handoffs: ['billing', { agent: 'support', inputFilter: { keepLast: 4 } }],
};

test('every declarative option reaches the agent exactly as the same definition in code', () => {
  const [fromFile] = loadAgentsFile(agentsFile({ agents: [declared] }));
  const inCode = defineAgent({
    name: 'triage',
    instructions: 'You triage tickets.',
    tools: [
      defineTool({
        name: 'open_ticket',
        description: 'Opens a ticket in the tracker',
        parameters: { ...ticketParameters, type: 'object' as const },
        external: true,
        needsApproval: true,
        resultTimeout: '1h',
      }),
      defineTool({
        name: 'note',
        description: 'Adds a note',
        parameters: { type: 'object' as const },
        external: true,
        strict: false,
      }),
      webSearchTool({ searchContextSize: 'low' }),
      fileSearchTool({ vectorStoreIds: ['vs_1'], maxNumResults: 3 }),
    ],
    toolUseBehavior: { stopAtToolNames: ['open_ticket'] },
    onMaxTurns: 'final_output',
    handoffs: ['billing', { agent: 'support', inputFilter: { keepLast: 4 } }],
  });
  const snapshot = fromFile!.snapshot();
  expect(snapshot).toEqual(inCode.snapshot());
  // And what that snapshot says, so the equality above cannot pass by both losing the options.
  expect(snapshot.toolUseBehavior).toEqual({ stopAtToolNames: ['open_ticket'] });
  expect(snapshot.onMaxTurns).toBe('final_output');
  expect(snapshot.hostedTools?.map((t) => t.providerData.type)).toEqual(['web_search', 'file_search']);
  const byName = Object.fromEntries(snapshot.tools.map((t) => [t.name, t]));
  expect(byName.open_ticket).toMatchObject({ approval: 'always', external: true, resultTimeout: '1h', strict: true });
  expect(byName.note!.strict).toBeUndefined(); // strict: false sends the schema as it is
  expect(byName.transfer_to_support!.handoffInput).toEqual({ keepLast: 4 });
  expect(byName.transfer_to_billing!.handoffInput).toBeUndefined();
});

test('a server conversation and resetToolChoice are taken too', () => {
  const [agent] = loadAgentsFile(
    agentsFile({ agents: [{ name: 'kept', instructions: 'Hi.', conversation: 'server', resetToolChoice: true }] }),
  );
  expect(agent!.snapshot()).toMatchObject({ conversation: 'server', resetToolChoice: true });
});

const withAgent = (fields: Record<string, unknown>) => ({ agents: [{ name: 'a', instructions: 'Hi.', ...fields }] });

test.each<[string, unknown, string]>([
  [
    'a tool that is not external',
    withAgent({ tools: [{ name: 't', description: 'd', parameters: { type: 'object' } }] }),
    'agents[0].tools[0].external: must be true: a tool declared in this file runs outside the worker',
  ],
  [
    'parameters that are not an object schema',
    withAgent({ tools: [{ name: 't', description: 'd', parameters: 'string', external: true }] }),
    'agents[0].tools[0].parameters: must be a JSON schema object, e.g. { "type": "object" }',
  ],
  [
    'a JSON schema of another type',
    withAgent({ tools: [{ name: 't', description: 'd', parameters: { type: 'string' }, external: true }] }),
    'agents[0]: tool t: parameters must be a zod object schema or a JSON schema of type "object"',
  ],
  [
    'an unknown hosted tool',
    withAgent({ hostedTools: [{ type: 'computer' }] }),
    'agents[0].hostedTools[0].type: must have "type": "web_search", "file_search", "code_interpreter" or "image_generation"',
  ],
  [
    'an unknown option of a hosted tool',
    withAgent({ hostedTools: [{ type: 'web_search', colour: 'red' }] }),
    'agents[0].hostedTools[0].colour: unknown field (known: type, name, userLocation, filters, searchContextSize, externalWebAccess)',
  ],
  [
    'a wrong toolUseBehavior',
    withAgent({ toolUseBehavior: 'stop' }),
    'agents[0].toolUseBehavior: must be "run_llm_again", "stop_on_first_tool" or { "stopAtToolNames": [ … ] }',
  ],
  [
    'a wrong onMaxTurns',
    withAgent({ onMaxTurns: 'retry' }),
    'agents[0].onMaxTurns: Invalid option: expected one of "fail"|"final_output"|"ask"',
  ],
  ['a wrong conversation', withAgent({ conversation: 'client' }), 'agents[0].conversation: must be "server"'],
  [
    'a wrong inputFilter',
    withAgent({ handoffs: [{ agent: 'b', inputFilter: 'remove_some' }] }),
    'agents[0].handoffs[0].inputFilter: must be "remove_all_tools" or { "keepLast": n }',
  ],
])('%s is refused in one line', (_, content, message) => {
  const path = agentsFile(content);
  expect(() => loadAgentsFile(path)).toThrow(`COUNTERSIGN_AGENTS_FILE ${path}: ${message}`);
});
