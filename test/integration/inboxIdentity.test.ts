// The inbox and the identities it decides for, against the real dev server: it signs a decision for an approver whose
// key it holds and says it cannot for the others; and a spoofed identity header on a loopback header-only inbox
// never makes a signed decision (with keys it refuses to start; without them, nothing runs).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRegistry } from '../../agents';
import { Runner } from '../../client';
import { startInbox } from '../../servers/inbox/inboxServer';
import { eventually } from '../support/fixtures';
import { startHarness, type Harness } from '../support/harness';
import { approver, approverKeysOf, vault, vaultRuns } from '../support/signedVault';

jest.setTimeout(300_000);

const ann = approver('ann');
const bob = approver('bob');

let h: Harness;
let runner: Runner;
beforeAll(async () => {
  h = await startHarness({ registry: new AgentRegistry([vault]), approverKeys: approverKeysOf([ann, bob]) });
  runner = new Runner(h.client, { taskQueue: h.taskQueue });
});
afterAll(async () => h?.close());
const { paused, auditOf, wiredBy } = vaultRuns(() => ({ h, runner }));

test('the inbox signs for approvers whose keys it holds, and says it cannot for the others', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-inbox-keys-'));
  writeFileSync(join(dir, 'ann.private.jwk'), JSON.stringify({ ...ann.jwk, kid: 'ann' }));
  const tokens = [
    { approver: 'ann', token: 'ann-token-0123456789abcdef' },
    { approver: 'bob', token: 'bob-token-0123456789abcdef' },
  ];
  const inbox = await startInbox({ runner, port: 0, tokens, keysDir: dir });
  try {
    const post = (workflowId: string, token: string) =>
      fetch(`${inbox.url}/api/runs/${workflowId}/decisions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ decisions: [{ callId: 'w1', decision: 'approve' }] }),
      });
    const { workflowId } = await paused();
    const refused = await post(workflowId, tokens[1]!.token);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: string }).error).toBe(
      'call w1 (wire_money) needs a signed decision and this server holds no key for bob: sign it yourself with countersign approve --key <file>',
    );
    const signedByServer = await post(workflowId, tokens[0]!.token);
    expect(await signedByServer.json()).toMatchObject({
      applied: [{ callId: 'w1', outcome: 'approved', approver: 'ann', verified: true }],
    });
    await eventually(async () => ((await runner.describe(workflowId)).status === 'Completed' ? true : undefined));
    expect(await wiredBy(workflowId)).toHaveLength(1);
  } finally {
    await inbox.close();
  }
});

test('a spoofed identity header on a loopback header-only inbox never makes a signed decision: the server holds no key, so nothing runs', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-inbox-keys-'));
  writeFileSync(join(dir, 'ann.private.jwk'), JSON.stringify({ ...ann.jwk, kid: 'ann' }));
  // The attack of issue 31: the header with the keys is refused outright ...
  await expect(startInbox({ runner, port: 0, approverHeader: 'X-Forwarded-User', keysDir: dir })).rejects.toThrow(
    "countersign serve --keys-dir signs decisions with approvers' keys, so it needs an identity that cannot be spoofed: set COUNTERSIGN_SERVE_TOKENS=ann:<token>,… or --approver-jwt-header with --approver-jwks, and no --approver-header",
  );
  // ... and without the keys, anyone who reaches the port and names ann gets the form, but not a signed decision.
  const inbox = await startInbox({ runner, port: 0, approverHeader: 'X-Forwarded-User' });
  try {
    const { workflowId } = await paused();
    const spoofed = { 'x-forwarded-user': 'ann' };
    const page = await fetch(`${inbox.url}/runs/${workflowId}`, { headers: spoofed });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const form = new URLSearchParams({ _csrf: csrf, callId: 'w1', action: 'approve' });
    const posted = await fetch(`${inbox.url}/runs/${workflowId}/decide`, {
      method: 'POST',
      body: form,
      headers: { ...spoofed, cookie },
      redirect: 'manual',
    });
    expect(posted.status).toBe(422);
    expect(await posted.text()).toContain(
      'call w1 (wire_money) needs a signed decision and this server holds no key for ann: sign it yourself with countersign approve --key &lt;file&gt;',
    );
    expect((await runner.pending(workflowId)).map((p) => p.callId)).toEqual(['w1']);
    expect(await auditOf(workflowId)).toEqual([]);
    expect(await wiredBy(workflowId)).toHaveLength(0);
  } finally {
    await inbox.close();
  }
});
