// Decisions for a run no worker serves. The `decide` update needs a worker to answer: sent now it would wait with no
// answer, and the server keeps an update it has not handed to a worker only in memory. A signal is written to the
// run's history at once and waits there: the worker that comes back takes it, checked as any decision (one the run no
// longer takes then is audited as ignored, as a refused signal always is). So each decision goes as the plain signal
// for it (core/approvals/decisionSignals.ts), and the caller is told it is kept, not applied.
import type { Client } from '@temporalio/client';
import {
  type Decision,
  addInputSignal,
  approveSignal,
  extendSignal,
  provideInputSignal,
  provideResultSignal,
  rejectSignal,
} from '../../contract/messages';
import { signalFor } from '../../core/approvals/decisionSignals';
import type { DecideResult } from '../../contract/runViews';
import type { NoWorkerError } from '../errors';
import { runPlace } from './runReads';
import { decideOnce } from './runUpdates';
import { runUnserved } from './workerPresence';

const SIGNALS = {
  approve: approveSignal,
  reject: rejectSignal,
  provideInput: provideInputSignal,
  provideResult: provideResultSignal,
  extend: extendSignal,
};

/** A decision kept in the run's history for its worker, as the signal that carried it. */
export interface KeptDecision {
  callId: string;
  decision: Decision['decision'];
  signal: string;
}

/** Sends each decision (then each user message) as its signal, in order; what was kept. */
export async function keepForWorker(
  client: Client,
  workflowId: string,
  decisions: readonly Decision[],
  inputs: readonly string[] = [],
): Promise<KeptDecision[]> {
  const handle = client.workflow.getHandle(workflowId);
  const kept: KeptDecision[] = [];
  for (const d of decisions) {
    const { name, payload } = signalFor(d);
    await handle.signal(SIGNALS[name], payload as never);
    kept.push({ callId: d.callId, decision: d.decision, signal: name });
  }
  for (const message of inputs) await handle.signal(addInputSignal, { message });
  return kept;
}

/** The line for one kept decision: what was kept, that it is not applied yet, and when it will be. */
export function keptLine(workflowId: string, taskQueue: string, k: KeptDecision): string {
  return `${k.decision} of call ${k.callId} is kept in run ${workflowId}'s history, not applied yet: the worker takes it when one runs on task queue "${taskQueue}" again, if the call still waits then (countersign audit ${workflowId} shows what came of it)`;
}

/** What sending decisions came to: applied (or refused, thrown) by the run's worker, or kept for the next one. */
export type Sent = { applied: DecideResult } | { kept: KeptDecision[]; down: NoWorkerError };

/**
 * The decide update when a worker serves the run (its answer: applied, or a refusal thrown); else each decision kept
 * as its signal, with the NoWorkerError that says why. An unknown or ended run is refused as by the update.
 */
export async function decideOrKeep(
  client: Client,
  workflowId: string,
  decisions: readonly Decision[],
  inputs: readonly string[] = [],
  /** What a read of the run just now learned: its worker answered, or none does (not asked again). */
  served?: 'answered' | NoWorkerError,
): Promise<Sent> {
  if (served === 'answered') return { applied: await decideOnce(client, workflowId, [...decisions], inputs) };
  const place = await runPlace(client, workflowId);
  const down = served ?? (place.status === 'RUNNING' ? await runUnserved(client, workflowId, place) : undefined);
  if (!down) return { applied: await decideOnce(client, workflowId, [...decisions], inputs) };
  return { kept: await keepForWorker(client, workflowId, decisions, inputs), down };
}
