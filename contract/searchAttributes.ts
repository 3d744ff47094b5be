// The run's search attributes: what `temporal workflow list --query "HitlStatus='AwaitingApproval'"` and the
// Web UI filter on. Names only, never argument values. Registered by `npm start` (see temporal.config.ts).
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributeUpdatePair } from '@temporalio/common';
import type { RunStatus } from './runViews';

export const HitlStatus = defineSearchAttributeKey('HitlStatus', SearchAttributeType.KEYWORD);
export const HitlPendingTools = defineSearchAttributeKey('HitlPendingTools', SearchAttributeType.KEYWORD_LIST);
export const HitlAgent = defineSearchAttributeKey('HitlAgent', SearchAttributeType.KEYWORD);
export const HitlPendingSince = defineSearchAttributeKey('HitlPendingSince', SearchAttributeType.DATETIME);

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
