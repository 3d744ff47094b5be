// Impact previews: the tool's own words for what a call would change, computed when the call is planned and shown
// wherever a person decides: the pendingApprovals query, `countersign show --json` and `show`, the inbox card, and
// the approval_requested notification's Slack Block Kit and email bodies. A preview that throws or takes too long
// shows `preview failed: …`, and the person is asked all the same.
import { z } from 'zod';
import { AgentRegistry, defineAgent, defineTool, demoAgents } from '../../agents';
import { Runner } from '../../client';
import { pendingApprovalsQuery } from '../../contract/messages';
import { cliEnv, countersign } from '../support/countersignCli';
import { eventually, newId } from '../support/fixtures';
import type { Harness } from '../support/harness';
import { startLinkedDesk, type LinkedDesk } from '../support/linkedDesk';
import type { WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(120_000);
const SECRET = 'preview-test-link-secret-0123456789abcdef';

const fragile = defineAgent({
  name: 'fragile',
  instructions: 'test',
  tools: [
    defineTool({
      name: 'drop_table',
      description: 'Drop a table',
      parameters: z.object({ table: z.string() }),
      needsApproval: true,
      preview: () => {
        throw new Error('the catalog is unreachable');
      },
      execute: ({ table }) => `dropped ${table}`,
    }),
    defineTool({
      name: 'wipe_disk',
      description: 'Wipe a disk',
      parameters: z.object({ disk: z.string() }),
      needsApproval: true,
      preview: () => new Promise<string>(() => undefined),
      execute: () => 'wiped',
    }),
  ],
});

let desk: LinkedDesk;
let h: Harness;
let runner: Runner;
let hook: WebhookReceiver;
let inbox: LinkedDesk['inbox'];
beforeAll(async () => {
  desk = await startLinkedDesk({ registry: new AgentRegistry([...demoAgents, fragile]), linkSecret: SECRET });
  ({ h, runner, hook, inbox } = desk);
});
afterAll(() => desk?.close());

const cli = async (...args: string[]) =>
  (await countersign(args, cliEnv({ COUNTERSIGN_TASK_QUEUE: h.taskQueue }))).stdout;
const IMPACT = 'deletes record DR-42 from the database; this cannot be undone';

test('the demo delete_record: its preview is in the query, show --json, show, the inbox, and the Block Kit and email bodies', async () => {
  const id = newId('preview');
  h.model.script(id, [
    { toolCalls: [{ name: 'delete_record', arguments: { record_id: 'DR-42' }, callId: 'd1' }] },
    { text: 'done' },
  ]);
  await runner.run('email-assistant', 'Delete the draft record DR-42', { workflowId: id });

  const [pending] = await h.client.workflow.getHandle(id).query(pendingApprovalsQuery);
  expect(pending!.preview).toEqual({ summary: IMPACT, details: "DELETE FROM records WHERE id = 'DR-42'" });
  const shownJson = JSON.parse(await cli('show', id, '--json')) as {
    pending: Array<{ callId: string; preview?: unknown }>;
  };
  expect(shownJson.pending.find((p) => p.callId === 'd1')?.preview).toEqual(pending!.preview);
  expect(await cli('show', id)).toContain(`impact: ${IMPACT}`);

  const page = await (await fetch(`${inbox.url}/`, { headers: { 'X-Forwarded-User': 'ann' } })).text();
  expect(page).toContain(`<b>Impact</b> ${IMPACT}`);

  const requested = await eventually(() =>
    hook.received.find((n) => n.workflowId === id && n.event === 'approval_requested'),
  );
  expect(requested.preview).toEqual(pending!.preview);
  expect(JSON.stringify(requested.slack!.blocks)).toContain(`*Impact:* ${IMPACT}`);
  expect(requested.email!.text).toContain(`Impact: ${IMPACT}`);
});

test('a preview that throws or never answers shows "preview failed", and the person is still asked', async () => {
  const id = newId('preview-failed');
  h.model.script(id, [
    {
      toolCalls: [
        { name: 'drop_table', arguments: { table: 'users' }, callId: 't1' },
        { name: 'wipe_disk', arguments: { disk: 'sda' }, callId: 'w1' },
      ],
    },
    { text: 'done' },
  ]);
  const paused = await runner.run('fragile', 'clean up', { workflowId: id });
  expect(paused.interruptions.map((i) => [i.callId, i.preview])).toEqual([
    ['t1', { summary: 'preview failed: the catalog is unreachable', failed: true }],
    ['w1', { summary: 'preview failed: it took longer than 5s', failed: true }],
  ]);
  const done = await runner.run(
    'fragile',
    paused.toState().approve('t1', { approver: 'ann' }).reject('w1', { approver: 'ann' }),
  );
  expect(done.finalOutput).toBe('done');
  expect(
    (await runner.describe(id)).items
      .filter((i) => i.type === 'function_call_output')
      .map((i) => i.type === 'function_call_output' && i.output),
  ).toEqual(['dropped users', 'Tool execution was not approved.']);
});
