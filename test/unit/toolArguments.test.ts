// A call's arguments against its tool's schema: planning's and runTool's reading (parseArguments), and what people
// send in a call's place (the validateArguments activity): input values over the model's arguments, edits as text or
// as an object. Text is parsed once; an object is never stringified to be parsed again; what comes out is the same
// normalised JSON text the run records.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool } from '../../agents';
import { createAgentActivities } from '../../activities/agentActivities';
import { parseArguments } from '../../activities/toolArguments';
import { workerSettingsOf } from '../../config/workerSettings';

const book = defineTool({
  name: 'book_meeting',
  description: 'books a meeting',
  parameters: z.object({ title: z.string(), time: z.string() }),
  userInput: ['time'],
  execute: () => 'booked',
});
const send = defineTool({
  name: 'send_email',
  description: 'sends',
  parameters: z.object({ to: z.string(), cc: z.string().default('') }),
  needsApproval: true,
  execute: () => 'sent',
});
const agent = defineAgent({ name: 'cal', instructions: 'x', tools: [book, send] });
const model = { baseURL: 'http://127.0.0.1:1/v1', apiKey: 'k', model: 'm', api: 'chat' as const, requestTimeoutMs: 1 };
const { validateArguments } = createAgentActivities({
  registry: new AgentRegistry([agent]),
  settings: workerSettingsOf({ model }),
});
const ref = { name: agent.name, version: agent.version };

describe('parseArguments', () => {
  test('text is parsed; an object is taken as it is; both read the same', () => {
    expect(parseArguments(send, '{"to":"a"}')).toEqual({ ok: true, params: { to: 'a', cc: '' } });
    expect(parseArguments(send, { to: 'a' })).toEqual({ ok: true, params: { to: 'a', cc: '' } });
    expect(parseArguments(send, '')).toEqual({
      ok: false,
      problem: 'to: Invalid input: expected string, received undefined',
    });
    expect(parseArguments(send, 'nope')).toEqual({ ok: false, problem: 'the arguments are not valid JSON' });
  });

  test('partial leaves the userInput fields to a person; strict refuses unknown keys; over completes', () => {
    expect(parseArguments(book, '{"title":"t"}').ok).toBe(false);
    expect(parseArguments(book, '{"title":"t"}', { partial: true })).toEqual({ ok: true, params: { title: 't' } });
    expect(parseArguments(send, { to: 'a', bcc: 'x' }).ok).toBe(true);
    expect(parseArguments(send, { to: 'a', bcc: 'x' }, { strict: true }).ok).toBe(false);
    expect(parseArguments(book, '{"title":"t"}', { over: { time: '10:00' } })).toEqual({
      ok: true,
      params: { title: 't', time: '10:00' },
    });
  });
});

describe('validateArguments (edits and input values)', () => {
  test('input values complete the model arguments: the normalised text the run records', async () => {
    await expect(
      validateArguments({
        agent: ref,
        toolName: 'book_meeting',
        arguments: '{"title":"t"}',
        values: { time: '10:00' },
      }),
    ).resolves.toEqual({ ok: true, arguments: '{"title":"t","time":"10:00"}' });
  });

  test('an edit as an object or as its text gives the same normalised text', async () => {
    const asObject = await validateArguments({ agent: ref, toolName: 'send_email', values: { to: 'b' } });
    const asText = await validateArguments({ agent: ref, toolName: 'send_email', arguments: '{"to":"b"}' });
    expect(asObject).toEqual({ ok: true, arguments: '{"to":"b","cc":""}' });
    expect(asText).toEqual(asObject);
  });

  test('what the schema refuses, and a tool the agent lacks, come back as problems', async () => {
    await expect(
      validateArguments({ agent: ref, toolName: 'send_email', values: { to: 'b', bcc: 'x' } }),
    ).resolves.toMatchObject({ ok: false });
    await expect(validateArguments({ agent: ref, toolName: 'send_email', arguments: '{' })).resolves.toEqual({
      ok: false,
      problem: 'the arguments are not valid JSON',
    });
    await expect(validateArguments({ agent: ref, toolName: 'nope', values: {} })).resolves.toEqual({
      ok: false,
      problem: `tool nope is not on agent cal@${agent.version}`,
    });
  });
});
