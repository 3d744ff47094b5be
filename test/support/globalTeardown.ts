import { rmSync } from 'node:fs';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadDevConfig } from '../../temporal.config';
import { packDirOf } from './packageInstall';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __countersignEnv?: TestWorkflowEnvironment }).__countersignEnv?.teardown();
  const { bundle } = loadDevConfig().test;
  if (bundle) rmSync(bundle, { force: true });
  if (bundle) rmSync(packDirOf(bundle), { recursive: true, force: true }); // the run's one npm pack (packageInstall.ts)
}
