// `npm start`'s approvals inbox: the same inbox `countersign serve` runs, on 127.0.0.1 only, where the browser signs
// in by the one-time link the banner prints (as the local user: whoever can open a loopback link on this machine
// already acts as that user). No proxy and no bearer token to set up before seeing a waiting call.
import { connectClient } from '../client/clientConnection';
import { Runner } from '../client/run/runner';
import { startInbox } from '../servers/inbox/inboxServer';
import { SIGN_IN_TTL_MS, localApprover } from '../servers/inbox/localSignIn';
import type { CountersignConfig } from '../temporal.config';

/** The inbox and the banner line saying how to open it; a taken port is said in that line, not fatal. */
export async function startLocalInbox(config: CountersignConfig): Promise<{ line: string; close(): Promise<void> }> {
  const client = await connectClient(config);
  const runner = new Runner(client, { taskQueue: config.taskQueue, sessionMaxItems: config.sessionMaxItems });
  const approver = localApprover();
  try {
    const inbox = await startInbox({
      runner,
      host: '127.0.0.1',
      port: config.dev.inboxPort,
      localSignIn: { approver, sessionTtlMs: config.signInSessionTtlMs },
      mixedScriptNames: config.mixedScriptNames,
      ...(config.linkSecret ? { linkSecret: config.linkSecret } : {}),
    });
    return {
      line: `Approvals inbox: ${inbox.signInUrl} (signs this browser in as ${approver}; the link works once, within ${SIGN_IN_TTL_MS / 60_000} minutes)`,
      close: async () => {
        await inbox.close(); // after its live streams ended: they read through this client
        await client.connection.close();
      },
    };
  } catch (err) {
    await client.connection.close();
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    return {
      line: `Approvals inbox: not started, port ${config.dev.inboxPort} is taken (set COUNTERSIGN_INBOX_PORT to a free port, 0 for any)`,
      close: async () => undefined,
    };
  }
}
