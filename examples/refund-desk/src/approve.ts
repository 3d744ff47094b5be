// Admin script: decide every call a refund request waits for.
//   node dist/approve.js <workflowId> [--reject "<message for the model>"] [--as <approver>]
import { parseArgs } from 'node:util';
import { Runner } from 'countersign/client';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { reject: { type: 'string' }, as: { type: 'string' } },
});
const workflowId = positionals[0];
if (!workflowId) {
  console.error('usage: approve <workflowId> [--reject "<message>"] [--as <approver>]');
  process.exit(2);
}

const runner = await Runner.connect({ taskQueue: process.env.COUNTERSIGN_TASK_QUEUE ?? 'refund-desk' });
try {
  const pending = await runner.pending(workflowId);
  if (!pending.length) console.log(`${workflowId} waits for nothing`);
  const approver = values.as ?? 'refund-admin';
  const decisions = pending.map((p) =>
    values.reject !== undefined
      ? { callId: p.callId, decision: 'reject' as const, message: values.reject, approver }
      : { callId: p.callId, decision: 'approve' as const, approver },
  );
  const result = await runner.decide(workflowId, decisions);
  for (const a of result.applied) console.log(`${a.outcome} ${a.toolName} ${a.callId} as ${a.approver}`);
} finally {
  await runner.close();
}
