// The OpenAI Agents SDK running the seed scenario in-process (not durable) against the bench's scripted model:
// run, approve the interruption at once, run the state to the end. Prints one JSON line: milliseconds per run and
// per model turn. Env: OPENAI_BASE_URL, BENCH_ITERATIONS.
import { OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { recordOnce } from '../../agents/demo/outbox';
import { p50p99 } from '../history';
import { emailAgent } from './emailAgent';

async function main() {
  setTracingDisabled(true);
  const iterations = Number(process.env.BENCH_ITERATIONS ?? 50);
  let turns = 0;
  const openAIClient = new OpenAI({
    baseURL: process.env.OPENAI_BASE_URL,
    apiKey: 'bench',
    maxRetries: 0,
    fetch: (url, init) => (turns++, fetch(url, init)),
  });
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient }) });
  // The same side effect Countersign's send_email performs: one line in the demo outbox.
  let n = 0;
  const agent = emailAgent({
    sendEmail: async ({ to, subject, body }) => (
      await recordOnce({ idempotencyKey: `in-process:${n}`, kind: 'email', to, subject, body }),
      `Email sent to ${to} with subject '${subject}'`
    ),
    deleteRecord: async ({ record_id }) => `Record ${record_id} deleted`,
  });
  const perRun: number[] = [];
  for (n = 0; n < iterations; n++) {
    const t0 = performance.now();
    let result = await runner.run(agent, 'Send the report to alice');
    for (const interruption of result.interruptions) result.state.approve(interruption);
    result = await runner.run(agent, result.state);
    perRun.push(performance.now() - t0);
    if (!String(result.finalOutput).includes('Email sent to alice@example.com'))
      throw new Error(`unexpected final output: ${result.finalOutput}`);
  }
  console.log(JSON.stringify({ iterations, turnsPerRun: turns / iterations, runMs: p50p99(perRun) }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
