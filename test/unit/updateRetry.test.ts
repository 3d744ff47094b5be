// retryUnprocessed: an update the server reports as not processed by a worker is sent again (it changed nothing);
// every other failure, and the last unprocessed one, reaches the caller.
import { ServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { retryUnprocessed } from '../../client/updateRetry';

const unprocessed = () =>
  new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({
      message: "Workflow Update is rejected because it wasn't processed by worker.",
      type: 'UnprocessedUpdate',
      nonRetryable: true,
    }),
  );
const refused = () =>
  new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({ message: 'callId c1 is not pending', type: 'DecisionRejected' }),
  );

test('sends again while the update was not processed, and returns the answer', async () => {
  let calls = 0;
  const answer = await retryUnprocessed(async () => {
    calls++;
    if (calls < 3) throw unprocessed();
    return 'applied';
  });
  expect(answer).toBe('applied');
  expect(calls).toBe(3);
});

/** What the server answers when the workflow task carrying the update failed before it completed (never accepted). */
const taskFailed = () =>
  new ServiceError('Workflow Update failed', {
    cause: Object.assign(
      new Error(
        '9 FAILED_PRECONDITION: Unable to perform workflow execution update due to unexpected workflow task failure.',
      ),
      { code: 9 },
    ),
  });

test('sends again when the workflow task carrying the update failed (the update was never accepted)', async () => {
  let calls = 0;
  const answer = await retryUnprocessed(async () => {
    calls++;
    if (calls < 2) throw taskFailed();
    return 'applied';
  });
  expect(answer).toBe('applied');
  expect(calls).toBe(2);
});

test('another FAILED_PRECONDITION (e.g. the run has ended) is not sent again', async () => {
  let calls = 0;
  const ended = new ServiceError('Workflow Update failed', {
    cause: Object.assign(new Error('9 FAILED_PRECONDITION: workflow execution already completed'), { code: 9 }),
  });
  await expect(
    retryUnprocessed(async () => {
      calls++;
      throw ended;
    }),
  ).rejects.toBe(ended);
  expect(calls).toBe(1);
});

test('a refusal from workflow code is not sent again', async () => {
  let calls = 0;
  await expect(
    retryUnprocessed(async () => {
      calls++;
      throw refused();
    }),
  ).rejects.toThrow('Workflow Update failed');
  expect(calls).toBe(1);
});

test('gives up after the set number of tries with the server’s error', async () => {
  let calls = 0;
  const err = await retryUnprocessed(async () => {
    calls++;
    throw unprocessed();
  }, 3).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
  expect(calls).toBe(3);
});
