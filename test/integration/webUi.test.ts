// The Temporal Web UI shows a paused run's waiting state in words. Headless Debian Chromium, driven by
// playwright-core; the screenshot is kept in test/artifacts/ for people to look at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Runner } from '../../client';
import { launchChromium } from '../support/chromium';
import { newId } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { projectRoot } from '../support/toolchain';
import { loadDevConfig } from '../../temporal.config';

jest.setTimeout(300_000); // generous: child processes are slow on a loaded 2-core machine
const webUi = () => loadDevConfig().test.ui; // the shared dev server's, from the globalSetup

/** The path the README links (after the Web UI's address). */
const AWAITING_APPROVAL_VIEW = 'namespaces/default/workflows?query=HitlStatus%3D%22AwaitingApproval%22';

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(async () => h?.close());

test('a paused run says what it waits for, in the Web UI', async () => {
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const paused = await runner.run('email-assistant', 'Send an email to alice@example.com about the meeting tomorrow', {
    workflowId: newId('webui'),
  });
  const callId = paused.interruptions[0]!.callId;

  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${webUi()}/namespaces/default/workflows/${paused.workflowId}`);
    // The run's "current details" live under the User Metadata tab; activity summaries show on the timeline.
    await page.getByText('model turn 1').first().waitFor({ timeout: 30_000 });
    await page.getByRole('tab', { name: 'User Metadata' }).click();
    // The UI renders metadata markdown inside sandboxed frames.
    const details = page
      .frameLocator('iframe[src*="Awaiting%20approval"]')
      .getByText(/Awaiting approval: send_email to alice@example\.com/)
      .first();
    mkdirSync(join(projectRoot, 'test/artifacts'), { recursive: true });
    await details.waitFor({ timeout: 20_000 }).catch(async (e) => {
      await page.screenshot({ path: join(projectRoot, 'test/artifacts/webui-failure.png'), fullPage: true });
      throw e;
    });
    expect(await details.isVisible()).toBe(true);
    expect(await details.textContent()).toMatch(
      new RegExp(
        `Awaiting approval: send_email to alice@example\\.com \\(call ${callId}, requested \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\)`,
      ),
    );
    // …with what the run was asked, rendered as written (the details are markdown).
    expect(await details.textContent()).toContain(
      ' — request: “Send an email to alice@example.com about the meeting tomorrow”',
    );
    await page
      .frameLocator('iframe[src*="email-assistant"]')
      .getByText('email-assistant: Send an email to alice@example.com about the meeting tomorrow')
      .waitFor(); // the run's summary
    await page.screenshot({ path: join(projectRoot, 'test/artifacts/webui-paused-run.png'), fullPage: true });

    // The README's link to the runs waiting for people: this run is listed, a finished one of the same test is not.
    const done = await runner.run('weather-assistant', "What's the weather in Paris?", {
      workflowId: newId('webui-done'),
    });
    expect(done.status).toBe('Completed');
    await page.goto(`${webUi()}/${AWAITING_APPROVAL_VIEW}`);
    await page.getByText(paused.workflowId).first().waitFor({ timeout: 30_000 });
    expect(await page.getByText(done.workflowId).count()).toBe(0);
    await page.screenshot({ path: join(projectRoot, 'test/artifacts/webui-awaiting-approval.png'), fullPage: true });
  } finally {
    await browser.close();
  }
});
