// The dev server every bench section measures on: the project's Temporal CLI, Countersign's search attributes, no
// Web UI, eager activity dispatch on (as `npm start`'s is).
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { EAGER_ACTIVITIES } from '../devtools/devServer';
import { HitlAgent, HitlPendingSince, HitlPendingTools, HitlStatus } from '../contract/searchAttributes';
import { binaryPath } from '../test/support/toolchain';

export const startBenchServer = () =>
  TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: binaryPath('temporal') }, searchAttributes: [HitlStatus, HitlPendingTools, HitlAgent, HitlPendingSince], ui: false, extraArgs: [...EAGER_ACTIVITIES] },
  });
