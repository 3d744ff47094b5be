// `npm start`: the whole thing on one machine. Starts (or reuses) a Temporal dev server with SQLite persistence
// and the Web UI, the scripted demo model if no OPENAI_API_KEY is set, and the worker. Ctrl-C stops what it started.
// With TEMPORAL_ADDRESS set it starts only the worker, against that cluster.
import { loadConfig } from '../temporal.config';
import { createConfiguredWorker } from './createWorker';
import { ensureDevServer } from './devServer';
import { failWith, runUntilSignalled } from './lifecycle';
import { resolveModel } from './startMode';

async function main() {
  const config = loadConfig();
  const server = config.addressExplicit ? undefined : await ensureDevServer(config);
  const { model, scripted } = await resolveModel(config.model);
  try {
    const { worker, connection } = await createConfiguredWorker(config, model);
    const lines = [
      '',
      `Countersign worker is running on task queue "${config.taskQueue}" (namespace "${config.namespace}", Temporal at ${config.address}).`,
      server ? `Temporal Web UI: ${server.uiUrl}${server.started ? ` (dev server started, state in ${config.devServer.dbFile})` : ' (existing dev server reused)'}` : 'Using the cluster from TEMPORAL_ADDRESS.',
      scripted
        ? `!!! Using the scripted demo model at ${scripted.baseURL}: scripted demo model — set OPENAI_API_KEY for a real model !!!`
        : `Model: ${model.model} via the ${model.api === 'chat' ? 'Chat Completions' : 'Responses'} API${model.baseURL ? ` at ${model.baseURL}` : ''}`,
      '',
      'Try, in another terminal:',
      '  npx countersign start email-assistant "Send the report to alice and delete the draft record DR-42" --workflow-id demo-1 --wait',
      '  npx countersign pending',
      '  npx countersign approve demo-1 --all',
      '  npx countersign result demo-1',
      'or with the plain temporal CLI (in .temporal/bin/):',
      `  temporal workflow list --query "HitlStatus='AwaitingApproval'"`,
      '  temporal workflow query --workflow-id demo-1 --type pendingApprovals',
      `  temporal workflow signal --workflow-id demo-1 --name approve --input '{"callId":"<callId>"}'`,
      '',
      'Ctrl-C stops everything this command started.',
      '',
    ];
    console.log(lines.join('\n'));
    await runUntilSignalled(worker, async () => {
      await connection.close();
    });
  } finally {
    await scripted?.close();
    await server?.stop();
  }
}

main().catch(failWith);
