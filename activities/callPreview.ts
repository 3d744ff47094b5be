// A waiting call's impact preview: the tool's own words for what the call would change, computed once when the call
// is planned (in the model-turn activity), within a time bound. It never stands between the call and the person: a
// preview that throws, times out or answers nonsense shows as `preview failed: <reason>`, and the person is asked.
import type { Tool, ToolPlanningContext } from '../agents/defineTool';
import type { CallPreview } from '../contract/runViews';
import { withinTime } from './deadline';

export const PREVIEW_TIMEOUT_MS = 5_000;
const MAX_SUMMARY_CHARS = 500;
const MAX_DETAILS_CHARS = 10_000;

export async function previewOf(
  tool: Tool,
  params: Record<string, unknown>,
  ctx: ToolPlanningContext,
  timeoutMs = PREVIEW_TIMEOUT_MS,
): Promise<CallPreview | undefined> {
  if (!tool.preview) return undefined;
  try {
    const shown = await withinTime(timeoutMs, () => tool.preview!(params, ctx));
    const p = typeof shown === 'string' ? { summary: shown } : shown;
    if (!p || typeof p !== 'object' || typeof p.summary !== 'string')
      throw new Error('it returned neither a string nor { summary }');
    return {
      summary: p.summary.slice(0, MAX_SUMMARY_CHARS),
      ...(typeof p.details === 'string' ? { details: p.details.slice(0, MAX_DETAILS_CHARS) } : {}),
    };
  } catch (err) {
    return {
      summary: `preview failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, MAX_SUMMARY_CHARS),
      failed: true,
    };
  }
}
