// The spans Countersign adds to a run's trace, and their attributes (docs/operations.md, "Traces"). Names of agents,
// tools, calls and outcomes only: no argument, output or context of a run is ever put in a span.
export const SPAN_NAMES = {
  /** One attempt of a model call (the modelTurn activity). */
  modelTurn: 'countersign.model_turn',
  /** One attempt of a tool's execution (the runTool activity). */
  toolCall: 'countersign.tool_call',
  /** A call waiting for a person, from its request to its decision (workflow time). */
  waitForPerson: 'countersign.wait_for_person',
} as const;

export const SPAN_ATTRIBUTES = {
  agent: 'countersign.agent',
  tool: 'countersign.tool',
  callId: 'countersign.call_id',
  /** model_turn and tool_call: `ok` or `error`; wait_for_person: the audit's decision (approved, rejected, expired, …). */
  outcome: 'countersign.outcome',
  /** wait_for_person: what the person is asked for (approval, input, result, uncertain). */
  kind: 'countersign.kind',
  /** model_turn: the run's turn number, and the tools the model called (names). */
  turn: 'countersign.turn',
  calledTools: 'countersign.called_tools',
  attempt: 'countersign.attempt',
} as const;
