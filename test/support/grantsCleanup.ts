// The end of a suite with a grants workflow of its own: the workflow (it would otherwise run on), then the harness.
import type { Harness } from './harness';

export async function closeWithGrants(h: Harness | undefined, workflowId: string): Promise<void> {
  await h?.client.workflow
    .getHandle(workflowId)
    .terminate('test over')
    .catch(() => undefined);
  await h?.close();
}
