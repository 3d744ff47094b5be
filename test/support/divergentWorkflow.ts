// A deliberately different `agentRun` (it only sleeps), so the replay test can prove that replaying the corpus
// against changed workflow code really fails.
import { sleep } from '@temporalio/workflow';

export async function agentRun(): Promise<string> {
  await sleep('1 day');
  return 'different';
}
