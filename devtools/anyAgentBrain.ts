// The scripted model's planner for tools the demo brain (devtools/demoBrain.ts) does not know, so `npm start` without
// an API key drives anyone's agent: a user message may direct a call (`call issue_refund {"orderId":"A-17","amount":80}`);
// otherwise the tools it names (by name, or by the words of the name: "refund" → issue_refund; else by the words of
// their descriptions) are called with arguments filled from each tool's JSON schema and the values in the message
// (devtools/schemaArguments.ts, devtools/messageValues.ts). The answer says in its text what it calls; demoBrain's final answer quotes the results.
import { VAGUE, mentions, messageValues, nameWords, plain, stem, wordsOf } from './messageValues';
import { type JsonSchema, exampleOf, fillObject } from './schemaArguments';
import type { ScriptStep } from './scriptSteps';

export interface ToolSpec {
  name: string;
  description?: string;
  parameters?: JsonSchema;
}

/** The function tools a request offers, in the Chat Completions or the Responses shape. */
export function toolSpecs(body: Record<string, unknown>): ToolSpec[] {
  return ((body.tools as Array<Record<string, unknown>>) ?? []).flatMap((t) => {
    const f = (t.type === 'function' && t.function ? t.function : t) as {
      name?: unknown;
      description?: unknown;
      parameters?: unknown;
    };
    if (typeof f.name !== 'string' || !f.name) return [];
    return [
      {
        name: f.name,
        ...(typeof f.description === 'string' ? { description: f.description } : {}),
        ...(f.parameters && typeof f.parameters === 'object' ? { parameters: f.parameters as JsonSchema } : {}),
      },
    ];
  });
}

const HANDOFF = /^transfer_to_/;

const contentWords = (text: string) => [
  ...new Set(
    nameWords(text)
      .filter((w) => !VAGUE.has(w) && !/^\d+$/.test(w))
      .map(stem),
  ),
];

/** A call the message directs, an answer why it cannot, or undefined when the message directs none. */
function directed(message: string, tools: ToolSpec[]): ScriptStep | undefined {
  const m = /^\s*call\s+([A-Za-z0-9_-]+)\s*([\s\S]*)$/i.exec(message);
  if (!m) return undefined;
  const [, name, rest] = m as unknown as [string, string, string];
  const tool = tools.find((t) => t.name === name);
  if (!tool)
    return rest.trim().startsWith('{')
      ? { text: `There is no tool named "${name}" here. I can use: ${tools.map((t) => t.name).join(', ')}.` }
      : undefined;
  const example = `call ${tool.name} ${JSON.stringify(exampleOf(tool.parameters ?? {}) ?? {})}`;
  let args: unknown = {};
  try {
    if (rest.trim()) args = JSON.parse(rest.trim());
  } catch (err) {
    return {
      text: `I did not call ${tool.name}: what follows its name is not valid JSON (${(err as Error).message}). Write the arguments as one JSON object, e.g. ${example}`,
    };
  }
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return { text: `I did not call ${tool.name}: its arguments must be a JSON object, e.g. ${example}` };
  return callStep([{ name: tool.name, arguments: args as Record<string, unknown> }]);
}

/** The tools the message names: by full name, or by a word of the name no other tool shares; else by description. */
function namedTools(message: string, tools: ToolSpec[]): ToolSpec[] {
  const said = wordsOf(message);
  const firstAt = (ws: string[]) => Math.min(...ws.map((w) => said.find((s) => s.word === w)?.at ?? Infinity));
  const byName = tools.flatMap((tool) => {
    const full = mentions(message, tool.name) ? plain(message).indexOf(plain(tool.name)) : Infinity;
    if (HANDOFF.test(tool.name)) return full < Infinity ? [{ tool, at: full }] : [];
    const own = contentWords(tool.name);
    const others = new Set(tools.filter((t) => t !== tool).flatMap((t) => contentWords(t.name)));
    const distinctive = own.filter((w) => !others.has(w));
    const allSaid = own.length > 0 && own.every((w) => said.some((s) => s.word === w));
    const at = Math.min(full, firstAt(distinctive), allSaid ? firstAt(own) : Infinity);
    return at < Infinity ? [{ tool, at }] : [];
  });
  if (byName.length) return byName.sort((a, b) => a.at - b.at).map((n) => n.tool);
  const scored = tools
    .filter((t) => !HANDOFF.test(t.name) && t.description)
    .map((tool) => ({
      tool,
      score: contentWords(tool.description!).filter((w) => w.length >= 4 && said.some((s) => s.word === w)).length,
    }))
    .filter((s) => s.score >= 2)
    .sort((a, b) => b.score - a.score);
  return scored.length ? [scored[0]!.tool] : [];
}

/** The plan for a request to tools the demo brain does not know, or undefined (then the brain answers in text). */
export function planAnyAgent(
  message: string,
  tools: ToolSpec[],
  known: ReadonlySet<string> = new Set(),
): ScriptStep | undefined {
  const order = directed(message, tools);
  if (order) return order;
  const chosen = namedTools(
    message,
    tools.filter((t) => !known.has(t.name)),
  );
  if (!chosen.length) return undefined;
  const values = messageValues(message);
  return callStep(
    chosen.map((t) => ({ name: t.name, arguments: fillObject(t.parameters ?? {}, values, message) ?? {} })),
  );
}

function callStep(calls: Array<{ name: string; arguments: Record<string, unknown> }>): ScriptStep {
  return {
    text: `Calling ${calls.map((c) => `${c.name} with ${JSON.stringify(c.arguments)}`).join('; ')}.`,
    toolCalls: calls,
  };
}
