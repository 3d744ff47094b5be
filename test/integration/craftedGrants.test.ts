// A grants workflow started with a crafted input, against the real dev server (issue 31, finding 8): its grants are
// capped at 366 days, a malformed one fails, and a forged grant approves nothing on a tool that needs signed decisions,
// even with a real token copied in. Making signed grants is in signedGrantMaking.test.ts.
import { WorkflowFailedError } from '@temporalio/client';
import { signGrant } from '../../client/signing/grantSigning';
import { GRANTS_WORKFLOW_TYPE, grantsQuery } from '../../contract/grantMessages';
import { newId } from '../support/fixtures';
import { ann, grantsId, grantVaultSuite, ran, request } from '../support/grantVault';
import type { Harness } from '../support/harness';

jest.setTimeout(300_000);

const { at, runWith } = grantVaultSuite();
let h: Harness;
beforeAll(() => ({ h } = at()));
describe('a grants workflow started with a crafted input', () => {
  const crafted = (grants: unknown[], more: Record<string, unknown> = {}) => ({ state: { grants, used: {} }, ...more });
  const forged = (tool: string, more: Record<string, unknown> = {}) => ({
    id: `g-${tool}`,
    agent: 'grant-vault',
    tool,
    where: {},
    grantedBy: 'ann',
    grantedAt: new Date().toISOString(),
    expiresAt: '2099-01-01T00:00:00.000Z',
    used: 0,
    ...more,
  });

  test('holds its grants at most 366 days; a malformed one fails at once', async () => {
    const workflowId = newId('crafted-grants');
    const handle = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: h.taskQueue,
      args: [crafted([forged('memo')]) as never],
    });
    const [held] = await handle.query(grantsQuery);
    expect(held).toMatchObject({ id: 'g-memo', tool: 'memo' });
    expect(Date.parse(held!.expiresAt)).toBeLessThanOrEqual(Date.now() + 366 * 24 * 3600_000);
    expect(Date.parse(held!.expiresAt)).toBeGreaterThan(Date.now() + 365 * 24 * 3600_000);
    await handle.terminate('test over');

    const bad = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
      workflowId: newId('crafted-grants'),
      taskQueue: h.taskQueue,
      args: [crafted([forged('memo', { uses: 10_000_000 })]) as never],
    });
    const failure = await bad.result().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.message).toMatch(
      /^invalid grants workflow input: state\.grants\.0\.uses/,
    );
  });

  test('a forged grant on a signed tool approves nothing, even with a real token copied in: the planner checks it again', async () => {
    const workflowId = newId('crafted-grants');
    const token = signGrant(ann, request('wire_funds', 'ann'));
    const handle = await h.client.workflow.start(GRANTS_WORKFLOW_TYPE, {
      workflowId,
      taskQueue: h.taskQueue,
      args: [
        crafted([
          forged('wire_funds'),
          forged('wire_funds', { id: 'g-copied', token, signed: { kid: 'ann', jti: 'x' } }),
        ]) as never,
      ],
    });
    try {
      await h.restartWorker(undefined, { grantsWorkflowId: workflowId });
      const run = await runWith('wire_funds', 'evil');
      expect(run.waiting).toEqual(['c0']);
      expect(ran).not.toContain(`${run.workflowId}:c0`);
    } finally {
      await handle.terminate('test over');
      await h.restartWorker(undefined, { grantsWorkflowId: grantsId });
    }
  });
});
