import { rmSync } from 'node:fs';
import type { TestWorkflowEnvironment } from '@temporalio/testing';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __countersignEnv?: TestWorkflowEnvironment }).__countersignEnv?.teardown();
  if (process.env.COUNTERSIGN_TEST_BUNDLE) rmSync(process.env.COUNTERSIGN_TEST_BUNDLE, { force: true });
}
