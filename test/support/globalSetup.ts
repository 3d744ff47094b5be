// One real Temporal dev server and one workflow bundle for the whole test run. Test files reach them through
// COUNTERSIGN_TEST_ADDRESS and COUNTERSIGN_TEST_BUNDLE.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { RUN_SEARCH_ATTRIBUTES } from '../../contract/searchAttributes';
import { freePort } from './processes';
import { binaryPath, projectRoot } from './toolchain';
import { buildWorkflowBundle } from '../../worker/workflowBundle';
import { EAGER_ACTIVITIES } from '../../devtools/devServer';

export default async function globalSetup(): Promise<void> {
  const uiPort = await freePort();
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: binaryPath('temporal') },
      searchAttributes: [...RUN_SEARCH_ATTRIBUTES],
      ui: true, // the Web UI test looks at a paused run
      uiPort,
      log: { format: 'pretty', level: 'error' },
      extraArgs: [
        ...EAGER_ACTIVITIES, // as `npm start`'s dev server
        // A deleted run (the payload gc suites emulate retention so) goes once the server has recorded its close in
        // visibility, which it does every 30 s by default: the first delete of a fresh namespace waited about 30 s.
        ...['--dynamic-config-value', 'history.visibilityProcessorUpdateAckInterval="1s"'],
        ...['--dynamic-config-value', 'history.transferProcessorUpdateAckInterval="1s"'],
      ],
    },
  });
  (globalThis as { __countersignEnv?: TestWorkflowEnvironment }).__countersignEnv = env;
  process.env.COUNTERSIGN_TEST_ADDRESS = env.address;
  process.env.COUNTERSIGN_TEST_UI = `http://127.0.0.1:${uiPort}`;

  const { code } = await buildWorkflowBundle();
  const dir = join(projectRoot, '.temporal');
  mkdirSync(dir, { recursive: true });
  const bundlePath = join(dir, `test-workflow-bundle.${process.pid}.js`); // one per jest run: runs side by side never read a half-written bundle
  writeFileSync(bundlePath, code);
  process.env.COUNTERSIGN_TEST_BUNDLE = bundlePath;
  // Worker processes and CLIs the tests start keep their approvals ledger apart from `npm start`'s (.temporal/ledger.db).
  process.env.COUNTERSIGN_LEDGER_URL ??= join(dir, 'test-ledger.db');
}
