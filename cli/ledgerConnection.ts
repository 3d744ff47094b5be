// The ledger's readers need Temporal only to ask whether a run that still shows a waiting call has ended (and verify
// to compare retained histories): with the server unreachable they read the ledger alone and say so in one line,
// so a report for years past retention runs where only the ledger's database can be reached.
import type { Client } from '@temporalio/client';
import { type Connect } from './cliConnection';
import { printProblem } from './terminalOutput';

export async function clientIfReachable(connect: Connect, without: string): Promise<Client | undefined> {
  try {
    return (await connect()).client;
  } catch (err) {
    // A bad setting is still an error; only an unreachable server is read around.
    if (!/^cannot reach Temporal /.test((err as Error)?.message ?? '')) throw err;
    printProblem(`${((err as Error)?.message ?? String(err)).split('\n')[0]}: ${without}`);
    return undefined;
  }
}
