// The consumer's client, with the Agents SDK's calling habits: runner.run(agent, input | state), result.state,
// RunState.fromString(agent, text). `node drive.mjs all <prefix>` runs every scenario at once (workflow ids
// `<prefix>-<scenario>`, which the test scripted the model for) and prints what each saw as one JSON object;
// `node drive.mjs resume <file>` approves the saved state in <file> and runs it to its end (another process, after
// the worker that held the run was killed).
import { readFileSync } from 'node:fs';
import { InputGuardrailTripwireTriggered, RunState, Runner } from 'countersign/client';
import { deskAgent, guardedAgent, mailAgent, rulesAgent, triageAgent, weatherAgent } from './agents.mjs';

const [mode, arg] = process.argv.slice(2);
const runner = await Runner.connect({ taskQueue: process.env.TASK_QUEUE });

/** What a result shows, in plain data. */
const view = (r) => ({
  status: r.status,
  agent: r.snapshot.agent.name,
  finalOutput: r.finalOutput,
  interruptions: r.interruptions.map((i) => ({
    callId: i.callId,
    toolName: i.name,
    args: i.args,
    agentName: i.agentName,
    ...(i.runId ? { runId: i.runId } : {}),
  })),
});

/** Approves every interruption through `result.state`, then resumes with it, as the SDK's examples do. */
async function approveAll(agent, result) {
  for (const i of result.interruptions) result.state.approve(i);
  return runner.run(agent, result.state);
}

const scenarios = {
  // 1, 2: one call asks (San Francisco), one does not (Oslo); approved through result.state.
  approve: async (workflowId) => {
    const paused = await runner.run(weatherAgent, 'Weather in Oslo and San Francisco?', { workflowId });
    return { paused: view(paused), done: view(await approveAll(weatherAgent, paused)) };
  },
  // 3: rejected with a message for the model.
  reject: async (workflowId) => {
    const paused = await runner.run(weatherAgent, 'Weather in San Diego?', { workflowId });
    paused.state.reject(paused.interruptions[0], { message: 'No weather for San Diego today, sorry' });
    return { paused: view(paused), done: view(await runner.run(weatherAgent, paused.state)) };
  },
  // 4: the state through text and back, in the SDK's argument order and in Countersign's.
  text: async (workflowId) => {
    const paused = await runner.run(weatherAgent, 'Weather in San Jose?', { workflowId });
    const text = paused.state.toString();
    const state = RunState.fromString(weatherAgent, text);
    const plain = RunState.fromString(text);
    let otherAgent = 'accepted';
    try {
      RunState.fromString(deskAgent, text); // another agent's state
    } catch (err) {
      otherAgent = err.name;
    }
    state.approve(state.getInterruptions()[0]);
    const done = await runner.run(weatherAgent, state);
    return {
      read: { workflowId: state.workflowId, plain: plain.workflowId, interruptions: state.getInterruptions().length },
      otherAgent,
      done: view(done),
    };
  },
  // 5: an asTool() agent whose own tool asks: the top run shows it and takes the decision.
  nested: async (workflowId) => {
    const paused = await runner.run(deskAgent, 'Who is customer R-1?', { workflowId });
    return { paused: view(paused), done: view(await approveAll(deskAgent, paused)) };
  },
  // 6: a handoff.
  handoff: async (workflowId) => {
    const done = await runner.run(triageAgent, 'I was charged twice', { workflowId, context: { plan: 'pro' } });
    return { done: view(done) };
  },
  // 7: an input guardrail, tripped and not.
  guardrail: async (workflowId) => {
    const passed = view(await runner.run(guardedAgent, 'hello there', { workflowId: `${workflowId}-ok` }));
    try {
      return { passed, tripped: view(await runner.run(guardedAgent, 'my password is hunter2', { workflowId })) };
    } catch (err) {
      const typed = err instanceof InputGuardrailTripwireTriggered;
      return { passed, threw: { name: err.name, type: err.type, typed, message: err.message } };
    }
  },
  // 9: AI SDK tools: needsApproval (a predicate) and toolApproval (approved / denied / user-approval).
  mail: async (workflowId) => {
    const paused = await runner.run(mailAgent, 'Tidy my inbox', { workflowId });
    return { paused: view(paused), done: view(await approveAll(mailAgent, paused)) };
  },
  // 9: toolApproval as a function: approved, asked, denied with a reason.
  rules: async (workflowId) => {
    const paused = await runner.run(rulesAgent, 'Archive and clean up', { workflowId });
    return { paused: view(paused), done: view(await approveAll(rulesAgent, paused)) };
  },
  // 8, first half: a call waits; the state is saved as text for another process.
  kill: async (workflowId) => {
    const paused = await runner.run(weatherAgent, 'Weather in San Antonio?', { workflowId });
    return { paused: view(paused), state: paused.state.toString() };
  },
};

const failed = (err) => ({ error: `${err.name}: ${err.message}` });
try {
  if (mode === 'all') {
    const names = Object.keys(scenarios);
    const outcomes = await Promise.all(names.map((n) => scenarios[n](`${arg}-${n}`).catch(failed)));
    console.log(JSON.stringify(Object.fromEntries(names.map((n, i) => [n, outcomes[i]]))));
  } else if (mode === 'resume') {
    const state = RunState.fromString(weatherAgent, readFileSync(arg, 'utf8'));
    state.approve(state.getInterruptions()[0]);
    console.log(JSON.stringify({ done: view(await runner.run(weatherAgent, state)) }));
  } else throw new Error(`usage: node drive.mjs all <prefix> | resume <state file>`);
} finally {
  await runner.close();
}
