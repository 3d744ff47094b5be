// The "not decided yet" text names the CLI command an approver can paste: with --as when the terms name approvers,
// since the CLI's default (the OS user) would be refused.
import type { PendingApproval } from '../../contract/runViews';
import { whereToDecide } from '../../gateway/gatedWaits';

const run = { workflowId: 'gateway-dev-3f', runId: 'r1' } as never;
const where = (approvers?: string[]) =>
  whereToDecide({ inboxUrl: undefined })(run, approvers && ({ approvers } as unknown as PendingApproval));

test('one approver: --as that approver', () => {
  expect(where(['lead'])).toBe('waiting for lead to approve: with `countersign approve gateway-dev-3f call --as lead`');
});

test('several: --as one of them; none named: no --as', () => {
  expect(where(['ann', 'bo'])).toContain('`countersign approve gateway-dev-3f call --as <one of ann, bo>`');
  expect(where([])).toBe('waiting for an approver to approve: with `countersign approve gateway-dev-3f call`');
  expect(where()).toBe('waiting for an approver to approve: with `countersign approve gateway-dev-3f call`');
});
