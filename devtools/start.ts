// `npm start`: the whole thing on one machine. Starts (or reuses) a Temporal dev server with SQLite persistence
// and the Web UI, the scripted demo model if no OPENAI_API_KEY is set, the worker, and the approvals inbox on
// loopback with a one-time sign-in link in the banner (localInbox.ts). Ctrl-C, a closed terminal or
// SIGTERM stops what it started; so does a crash (best effort), and the dev server's watchdog covers SIGKILL.
// With TEMPORAL_ADDRESS set it starts only the worker, against that cluster.
import type { DemoModel } from '../worker/modelChoice';
import { loadConfig } from '../temporal.config';
import { servedAgents } from '../worker/agentsModule';
import { createConfiguredWorker } from '../worker/createWorker';
import { ensureDevServer } from './devServer';
import { startLocalInbox } from './localInbox';
import { cleanupOnCrash, failWith, runUntilSignalled, tolerateClosedOutput } from '../worker/lifecycle';
import { resolveModel } from '../worker/modelChoice';

async function main() {
  tolerateClosedOutput(); // from the start: `npm start | tee log` may lose its reader at any time
  const config = loadConfig();
  const server = config.addressExplicit ? undefined : await ensureDevServer(config);
  if (server) cleanupOnCrash(server.stop);
  let scripted: DemoModel | undefined;
  let inbox: Awaited<ReturnType<typeof startLocalInbox>> | undefined;
  try {
    const resolved = await resolveModel(config.model, config.dev.scriptedModelPort);
    const { model } = resolved;
    scripted = resolved.scripted;
    const registry = await servedAgents(config);
    const { worker, connection, deltaRelay, ledgerLine } = await createConfiguredWorker(config, model, registry);
    inbox = await startLocalInbox(config);
    const lines = [
      '',
      `Countersign worker is running on task queue "${config.taskQueue}" (namespace "${config.namespace}", Temporal at ${config.address}).`,
      `Agents: ${registry.names().join(', ')}.`,
      server
        ? `Temporal Web UI: ${server.uiUrl}${server.started ? ` (dev server started, state in ${config.dev.devServer.dbFile})` : ' (existing dev server reused)'}`
        : 'Using the cluster from TEMPORAL_ADDRESS.',
      ...(server
        ? [
            `Runs waiting for people: ${server.uiUrl}/namespaces/${config.namespace}/workflows?query=HitlStatus%3D%22AwaitingApproval%22`,
          ]
        : []),
      inbox.line,
      `${ledgerLine[0]!.toUpperCase()}${ledgerLine.slice(1)}: the CLI and a service read it when their COUNTERSIGN_LEDGER_URL names it.`,
      scripted
        ? `!!! Using the scripted demo model at ${scripted.baseURL}: scripted demo model — set OPENAI_API_KEY for a real model !!!`
        : `Model: ${model.model} via the ${model.api === 'chat' ? 'Chat Completions' : 'Responses'} API${model.baseURL ? ` at ${model.baseURL}` : ''}`,
      '',
      'Try, in another terminal:',
      '  npx countersign start email-assistant "Send the report to alice and delete the draft record DR-42" --workflow-id demo-1 --wait',
      '  npx countersign pending',
      '  npx countersign approve demo-1 --all',
      '  npx countersign result demo-1 --wait',
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
      await deltaRelay?.close();
      await connection.close();
    });
  } finally {
    try {
      await inbox?.close();
      await scripted?.close();
    } finally {
      await server?.stop(); // whatever failed before: the dev server must not outlive us
    }
  }
}

main().catch(failWith);
