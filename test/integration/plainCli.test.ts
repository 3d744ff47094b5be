// The plain `temporal` CLI on a run with a 300 KB tool argument: without a codec it prints the reference history
// keeps (the value codec's envelope reference, or ciphertext with encryption keys); pointed at `countersign
// codec-server` (--codec-endpoint, --codec-auth for its token) it prints the argument itself.
import { randomBytes } from 'node:crypto';
import { Runner } from '../../client';
import { approveUntilDone } from '../../bench/growth';
import type { PendingApproval, RunResult } from '../../contract/runViews';
import { newId } from '../support/fixtures';
import { startHarness, testPayloadStorage, type Harness } from '../support/harness';
import { freePort, spawnProcess, type Spawned } from '../support/processes';
import { projectRoot } from '../support/toolchain';
import { CLI_PATH, temporalCli } from '../support/countersignCli';

jest.setTimeout(300_000);
const TOKEN = 'plain-cli-codec-token-0123456789';
const MARKER = 'END-OF-THE-300KB-BODY';
const BODY = `${'Quarterly figures, line by line. '.repeat(10_000).slice(0, 300_000 - MARKER.length)}${MARKER}`;
const { dir, thresholdBytes } = testPayloadStorage as { dir: string; thresholdBytes: number };

const temporal = (...args: string[]) => temporalCli(args);
const encodingOf = (p: { metadata: { encoding: string } }) => Buffer.from(p.metadata.encoding, 'base64').toString();
const bodyOf = (args: string) => (JSON.parse(args) as { body: string }).body;

describe.each([
  { name: 'payload store', encoding: 'json/countersign-values', keys: undefined },
  {
    name: 'payload store and encryption',
    encoding: 'binary/encrypted',
    keys: `k1:${randomBytes(32).toString('base64')}`,
  },
])('with the $name', ({ encoding, keys }) => {
  let h: Harness;
  let codec: Spawned;
  let codecArgs: string[];
  beforeAll(async () => {
    h = await startHarness({ encryptionKeys: keys });
    // The codec server as an operator runs it: a child process with the worker's storage settings (and keys).
    const port = await freePort();
    const env = {
      ...process.env,
      COUNTERSIGN_PAYLOAD_STORAGE: 'file',
      COUNTERSIGN_PAYLOAD_DIR: dir,
      COUNTERSIGN_PAYLOAD_THRESHOLD_BYTES: String(thresholdBytes),
      COUNTERSIGN_CODEC_TOKEN: TOKEN,
      COUNTERSIGN_ENCRYPTION_KEYS: keys ?? '',
      NO_COLOR: '1',
    };
    codec = spawnProcess(process.execPath, [CLI_PATH, 'codec-server', '--port', String(port)], {
      cwd: projectRoot,
      env,
    });
    await codec.waitFor(/codec server at .*bearer token required/);
    codecArgs = ['--codec-endpoint', `http://127.0.0.1:${port}`, '--codec-auth', `Bearer ${TOKEN}`];
  });
  afterAll(async () => {
    codec?.kill('SIGKILL');
    await codec?.exited;
    await h?.close();
  });

  test('workflow query pendingApprovals, result and show print the 300 KB argument through the codec server, and only through it', async () => {
    const workflowId = newId('plain-cli');
    h.model.script(workflowId, [
      {
        toolCalls: [
          {
            name: 'send_email',
            arguments: { to: 'alice@example.com', subject: 'Figures', body: BODY },
            callId: 'big-1',
          },
        ],
      },
      { text: `Sent: ${BODY}` },
    ]);
    const runner = new Runner(h.client, { taskQueue: h.taskQueue });
    const first = await runner.run('email-assistant', 'Send alice the figures', { workflowId });
    expect(first.interruptions.map((i) => i.callId)).toEqual(['big-1']);

    const query = ['workflow', 'query', '--workflow-id', workflowId, '--type', 'pendingApprovals', '-o', 'json'];
    // Without the codec: one small payload, the reference history keeps, and nothing of the body.
    const raw = await temporal(...query);
    expect(raw).not.toContain(MARKER);
    expect(raw.length).toBeLessThan(2_000);
    const rawPayloads = (JSON.parse(raw) as { queryResult: { payloads: Array<{ metadata: { encoding: string } }> } })
      .queryResult.payloads;
    expect(rawPayloads.map(encodingOf)).toEqual([encoding]);

    const decoded = JSON.parse(await temporal(...query, ...codecArgs)) as { queryResult: PendingApproval[][] };
    const pending = decoded.queryResult[0]!;
    expect(pending.map((p) => [p.callId, p.toolName])).toEqual([['big-1', 'send_email']]);
    const body = bodyOf(pending[0]!.arguments);
    expect(body.length).toBe(300_000);
    expect(body.endsWith(MARKER)).toBe(true);
    expect(body).toBe(BODY);

    // The token is what lets the CLI in: without --codec-auth the codec server answers 401 and the CLI says so.
    await expect(temporal(...query, ...codecArgs.slice(0, 2))).rejects.toMatchObject({
      stderr: expect.stringContaining('Unauthorized: {"error":"missing or wrong bearer token"}'),
    });

    expect((await approveUntilDone(runner, first)).status).toBe('Completed');
    // Asked exactly as scripted: a 300 KB answer streamed slowly on a busy worker is read whole, not asked again.
    expect(h.model.requests.filter((r) => r.runId === workflowId).length).toBe(2);
    const result = ['workflow', 'result', '--workflow-id', workflowId, '-o', 'json'];
    const rawResult = await temporal(...result);
    expect(rawResult).not.toContain(MARKER);
    expect(encodingOf((JSON.parse(rawResult) as { result: { metadata: { encoding: string } } }).result)).toBe(encoding);
    const run = (JSON.parse(await temporal(...result, ...codecArgs)) as { result: RunResult }).result;
    expect(run.finalOutput).toBe(`Sent: ${BODY}`);
    expect(run.audit.map((a) => [a.callId, a.decision, bodyOf(a.arguments!)])).toEqual([['big-1', 'approved', BODY]]);

    // The history, event by event (--detailed prints each event's payloads as JSON; the table prints only the result).
    const show = ['workflow', 'show', '--workflow-id', workflowId, '--detailed'];
    expect(await temporal(...show)).not.toContain(MARKER);
    const history = await temporal(...show, ...codecArgs);
    // At least the model's answer, the tool's input, the next turn's input and the final output hold the body.
    expect(history.split(MARKER).length - 1).toBeGreaterThanOrEqual(4);
  });
});
