// `countersign keys`: approvers' signing keys. Needs no Temporal connection: keys are made locally, the private
// key stays with the approver and the key set goes to the workers.
import type { Command } from 'commander';
import { dim, print, printJson } from './terminalOutput';
import { lazy } from './lazyLoads';

export function addKeyCommands(program: Command): void {
  const keys = program.command('keys').description("approvers' Ed25519 keys for signed decisions");

  keys
    .command('generate')
    .description(
      'make a key pair for an approver: a private key file for them, and the public key added to the key set workers read',
    )
    .argument('<approver>', 'approver name, the key id their tokens carry (letters, digits, _ . @ -)')
    .option('--dir <dir>', 'folder for both files', '.')
    .option('--json', 'machine-readable output')
    .action((approver: string, o: { dir: string; json?: boolean }) => {
      const { privateKeyFile, keySetFile } = lazy.decisionSigning().generateApproverKey(approver, o.dir);
      if (o.json) return printJson({ approver, privateKeyFile, keySetFile });
      print(`private key: ${privateKeyFile} (keep it with ${approver}; never give it to a worker)`);
      print(`key set:     ${keySetFile}`);
      print(
        dim(
          `set COUNTERSIGN_APPROVER_KEYS=${keySetFile} on the workers; sign with: countersign approve <workflowId> <callId> --key ${privateKeyFile}`,
        ),
      );
    });
}
