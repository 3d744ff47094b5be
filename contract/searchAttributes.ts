// The run's search attributes: what `temporal workflow list --query "HitlStatus='AwaitingApproval'"` and the
// Web UI filter on. Names only, never argument values. Declared here once: temporal.config.ts's SEARCH_ATTRIBUTES
// (what `npm start` and an operator register) and the test and bench servers derive from RUN_SEARCH_ATTRIBUTES.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributeUpdatePair } from '@temporalio/common';
import type { RunStatus } from './runViews';

export const HitlStatus = defineSearchAttributeKey('HitlStatus', SearchAttributeType.KEYWORD);
export const HitlPendingTools = defineSearchAttributeKey('HitlPendingTools', SearchAttributeType.KEYWORD_LIST);
export const HitlAgent = defineSearchAttributeKey('HitlAgent', SearchAttributeType.KEYWORD);
export const HitlPendingSince = defineSearchAttributeKey('HitlPendingSince', SearchAttributeType.DATETIME);

/** Every attribute a run upserts: what a namespace must have registered before a run starts. */
export const RUN_SEARCH_ATTRIBUTES = [HitlStatus, HitlPendingTools, HitlAgent, HitlPendingSince] as const;

export function searchAttributeUpdates(s: {
  status: RunStatus;
  agent: string;
  pending: Array<{ toolName: string; requestedAt: string }>;
}): SearchAttributeUpdatePair[] {
  const since = s.pending.map((p) => p.requestedAt).sort()[0];
  return [
    { key: HitlStatus, value: s.status },
    { key: HitlAgent, value: s.agent },
    { key: HitlPendingTools, value: s.pending.length ? [...new Set(s.pending.map((p) => p.toolName))] : null },
    { key: HitlPendingSince, value: since ? new Date(since) : null },
  ];
}
