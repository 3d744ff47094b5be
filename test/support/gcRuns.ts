// For the payload gc tests: a namespace of their own on the shared dev server (the shortest retention it accepts,
// 1 hour, and Countersign's search attributes), runs with a distinct 300 KB argument each, and "past retention"
// emulated the way retention ends a run: DeleteWorkflowExecution (its history and visibility record go).
import { randomUUID } from 'node:crypto';
import { type Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { Worker } from '@temporalio/worker';
import type { Runner } from '../../client';
import { dataConverterOf, openPayloadStorage } from '../../storage/payloadStorage';
import { loadDevConfig, type PayloadStorageSettings } from '../../temporal.config';
import { addRunSearchAttributes, eventually } from './fixtures';
import type { Harness } from './harness';
import { testAddress } from './testServer';

export const BODY_BYTES = 300_000;
export const bodyOf = (tag: string) =>
  `${tag}\n${`Report ${tag}: all the figures. `.repeat(Math.ceil(BODY_BYTES / 20))}`.slice(0, BODY_BYTES);

/** A fresh namespace: retention 1 hour, the search attributes the workflow upserts; usable when this returns. */
export async function gcNamespace(): Promise<string> {
  const namespace = `gc-${randomUUID().slice(0, 8)}`;
  const connection = await Connection.connect({ address: testAddress() });
  try {
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1h') });
    await eventually(() =>
      connection.workflowService.describeNamespace({ namespace }).then(
        () => true,
        () => undefined,
      ),
    );
    await addRunSearchAttributes(connection, namespace);
  } finally {
    await connection.close();
  }
  return namespace;
}

/** A run that asks to send a 300 KB body of its own and waits for the approval. */
export async function pausedRun(h: Harness, runner: Runner, workflowId: string) {
  h.model.script(workflowId, [
    {
      toolCalls: [
        {
          name: 'send_email',
          arguments: { to: 'alice@example.com', subject: workflowId, body: bodyOf(workflowId) },
          callId: 'mail-1',
        },
      ],
    },
    { text: `Sent ${workflowId}.` },
  ]);
  const first = await runner.run('email-assistant', `Send the report ${workflowId}`, { workflowId });
  expect(first.interruptions).toHaveLength(1);
  return first;
}

/** As retention does once it has passed: the execution, its history and its visibility record are deleted. */
export async function pastRetention(client: Client, workflowId: string): Promise<void> {
  await client.workflowService.deleteWorkflowExecution({
    namespace: client.options.namespace,
    workflowExecution: { workflowId },
  });
  await eventually(async () => {
    const listed = await client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query: `WorkflowId = '${workflowId}'`,
    });
    const history = await client.workflow
      .getHandle(workflowId)
      .describe()
      .then(
        () => true,
        () => false,
      );
    return listed.executions?.length || history ? undefined : true;
  });
}

/** What a remaining run must still do after a sweep: its whole conversation, its queries, a replay of its history. */
export async function stillWhole(
  client: Client,
  runner: Runner,
  storage: PayloadStorageSettings,
  workflowId: string,
): Promise<void> {
  const items = [];
  for await (const item of runner.conversation(workflowId)) items.push(item);
  const call = items.find((i) => i.type === 'function_call');
  expect(call && (JSON.parse(call.arguments) as { body: string }).body).toBe(bodyOf(workflowId));
  const snapshot = await runner.describe(workflowId); // a query, answered by a worker from the run's state
  if (snapshot.status === 'AwaitingApproval')
    expect((JSON.parse(snapshot.pending[0]!.arguments) as { body: string }).body).toBe(bodyOf(workflowId));
  else expect(snapshot.status).toBe('Completed');
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await Worker.runReplayHistory(
    {
      workflowBundle: { codePath: loadDevConfig().test.bundle! },
      dataConverter: dataConverterOf(openPayloadStorage(storage)),
    },
    history,
    workflowId,
  );
}
