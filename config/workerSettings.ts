// The slice of the configuration an agent worker's activities and call planning read. createWorker makes it once
// (workerSettingsOf: from its options, or from the loaded configuration for createConfiguredWorker), checks it once,
// and hands that object to the activities, which hand it to planning as it is: no field is copied on the way.
//
// Fast mode has one name in the configuration, the worker and the activities: `fastMode` (COUNTERSIGN_FAST_MODE,
// createWorker's option). What it changes is recorded in a run's agent snapshot as `modelCalls: 'local'`, a shape
// in history that stays as it is.
import { GRANTS_WORKFLOW_ID } from '../contract/grantMessages';
import type { CountersignConfig } from './settings';
import { durationMsOf } from './envFields';

/** An approver's Ed25519 public key, as loaded from the COUNTERSIGN_APPROVER_KEYS file (activities/approverKeys.ts). */
export interface ApproverKey {
  kid: string;
  /** The public key, base64url of its 32 bytes. */
  x: string;
}

/** The configuration's fields in the slice, declared once: the type below and workerSettingsOf both follow it. */
const FROM_CONFIG = [
  'model',
  'webhookUrl',
  'links',
  'requireSignedDecisions',
  'fastMode',
  'grantsWorkflowId',
  'predicateTimeoutMs',
] as const;

/** COUNTERSIGN_PREDICATE_TIMEOUT's default (temporal.config.ts declares it): a tool's predicate that takes longer asks a person. */
export const DEFAULT_PREDICATE_TIMEOUT = '10s';

export type WorkerSettings = Pick<CountersignConfig, (typeof FROM_CONFIG)[number]> & {
  /** COUNTERSIGN_APPROVER_KEYS, loaded: the public keys signed decisions and signed grants are checked against. */
  approverKeys: ApproverKey[];
};

/** What a caller may leave out, with the value it then has (the schema's defaults in temporal.config.ts). */
const DEFAULTS = {
  requireSignedDecisions: false,
  fastMode: false,
  grantsWorkflowId: GRANTS_WORKFLOW_ID,
  predicateTimeoutMs: durationMsOf(DEFAULT_PREDICATE_TIMEOUT)!,
} satisfies Partial<WorkerSettings>;

/**
 * The slice out of `given` (createWorker's options, or a loaded CountersignConfig with the approver keys), unset fields
 * at their defaults. Not checked here: createWorker checks it against the agents it serves.
 */
export function workerSettingsOf(given: Partial<WorkerSettings> & Pick<WorkerSettings, 'model'>): WorkerSettings {
  const set: Partial<WorkerSettings> = Object.fromEntries(
    [...FROM_CONFIG, 'approverKeys' as const].flatMap((k) => (given[k] === undefined ? [] : [[k, given[k]]])),
  );
  return { ...DEFAULTS, approverKeys: [], model: given.model, ...set };
}
