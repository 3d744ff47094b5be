// How long a model text delta takes from the scripted model (the moment its SSE chunk leaves) to a reader of
// runner.runStreamed: through the model activity, the worker's delta relay and the reader's SSE connection.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Runner } from '../client';
import { buildWorkflowBundle } from '../worker/workflowBundle';
import { startHarness } from '../test/support/harness';
import { projectRoot } from '../test/support/toolchain';

export interface DeltaLatencyResult {
  runs: number;
  /** First delta: sent by the model → yielded by runStreamed (ms). */
  firstDeltaMs: { p50: number; p95: number; max: number };
  /** Every delta (ms). */
  anyDeltaMs: { p50: number; p95: number };
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

export async function measureDeltaLatency(o: {
  startServer: () => Promise<TestWorkflowEnvironment>;
  runs: number;
  log: (line: string) => void;
}): Promise<DeltaLatencyResult> {
  const env = await o.startServer();
  const bundlePath = join(projectRoot, '.temporal/bench-delta-bundle.js');
  mkdirSync(join(projectRoot, '.temporal'), { recursive: true });
  writeFileSync(bundlePath, (await buildWorkflowBundle({ quiet: true })).code);
  process.env.COUNTERSIGN_TEST_ADDRESS = env.address;
  process.env.COUNTERSIGN_TEST_BUNDLE = bundlePath;
  const h = await startHarness(); // its worker runs the delta relay
  const runner = new Runner(h.client, { taskQueue: h.taskQueue });
  const first: number[] = [];
  const all: number[] = [];
  try {
    for (let i = 0; i < o.runs; i++) {
      const id = `bench-deltas-${Date.now()}-${i}`;
      const text = 'The quick brown fox jumps over the lazy dog. '.repeat(4);
      h.model.script(id, [{ text, chunkDelayMs: 40 }]);
      const streamed = await runner.runStreamed('weather-assistant', 'Say something', { workflowId: id });
      const arrived: number[] = [];
      for await (const e of streamed) if (e.type === 'model_text_delta') arrived.push(Date.now());
      await streamed.completed;
      const sent = h.model.sentChunks.filter((c) => c.runId === id).map((c) => c.at);
      if (!arrived.length || arrived.length !== sent.length) {
        o.log(`deltas: run ${i} got ${arrived.length} of ${sent.length} deltas`);
        continue;
      }
      first.push(arrived[0]! - sent[0]!);
      arrived.forEach((t, k) => all.push(t - sent[k]!));
    }
  } finally {
    await h.close();
    await env.teardown();
  }
  return {
    runs: first.length,
    firstDeltaMs: { p50: quantile(first, 0.5), p95: quantile(first, 0.95), max: Math.max(...first) },
    anyDeltaMs: { p50: quantile(all, 0.5), p95: quantile(all, 0.95) },
  };
}
