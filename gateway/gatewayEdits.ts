// Arguments a reviewer edits on a gateway call (`countersign approve --edit`, the inbox), checked on the gateway's
// own worker in place of the agents' check: the gateway's one agent has no tools, since each run carries its own,
// so that check found none and refused every edit. An approval request's arguments are the caller's to act on: any
// JSON object. An MCP call's go to its upstream: checked against the input schema it listed. A coding agent's hook
// call is answered allow for the exact input the agent runs itself: an edit could not reach it, so it is refused.
import { Context } from '@temporalio/activity';
import { parseArguments } from '../activities/toolArguments';
import { requestIdPrefix } from './approvalRequests';
import type { Upstreams } from './upstreams';

interface EditRequest {
  toolName: string;
  arguments?: string;
  values?: Record<string, unknown>;
}
type Checked = { ok: true; arguments: string } | { ok: false; problem: string };

export function gatewayEdits(gateway: string, upstreams: Pick<Upstreams, 'tools'>) {
  return {
    async validateArguments(req: EditRequest): Promise<Checked> {
      const asked = (Context.current().info.workflowExecution?.workflowId ?? '').startsWith(requestIdPrefix(gateway));
      const schema = asked ? { type: 'object' } : upstreams.tools.get(req.toolName)?.listed.inputSchema;
      if (!schema)
        return {
          ok: false,
          problem: `a coding agent's hook call is approved as the agent asked it (it runs its own input): approve it as it is, or reject it saying what to run instead`,
        };
      const spec = { parameters: schema, jsonSchema: schema };
      const parsed =
        req.arguments === undefined
          ? parseArguments(spec, req.values ?? {}, { strict: !asked })
          : parseArguments(spec, req.arguments, { strict: !asked, over: req.values });
      return parsed.ok ? { ok: true, arguments: JSON.stringify(parsed.params) } : parsed;
    },
  };
}
