/* global document, sessionStorage, crypto, fetch, TextDecoderStream */
// A minimal AG-UI front end in plain browser JavaScript (no bundler): it posts a RunAgentInput to /ag-ui/<agent>, reads
// the server-sent events, shows text and tool calls as they come, and answers each interrupt with a resume entry.
// A React or CopilotKit app does the same through @ag-ui/client's HttpAgent (docs/ag-ui.md).
const agent = document.getElementById('agent').textContent;
const known = sessionStorage.threadId; // this tab's thread, kept across reloads
const threadId = known ?? (sessionStorage.threadId = crypto.randomUUID());
const messages = []; // the whole history, resent each run as AG-UI asks
const log = document.getElementById('log');
const box = document.getElementById('interrupts');
const bubbles = new Map();

function show(id, cls, text) {
  let li = bubbles.get(id);
  if (!li) {
    li = Object.assign(document.createElement('li'), { className: cls });
    bubbles.set(id, li);
    log.append(li);
  }
  li.textContent = text;
}

async function run(resume) {
  box.replaceChildren();
  const res = await fetch(`/ag-ui/${agent}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId,
      runId: crypto.randomUUID(),
      messages,
      tools: [],
      context: [],
      state: {},
      ...(resume ? { resume } : {}),
    }),
  });
  if (!res.ok) return show(`error-${Date.now()}`, 'tool', (await res.json()).error);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    buffer += chunk.value;
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (frame.startsWith('data: ')) handle(JSON.parse(frame.slice(6)));
    }
  }
}

const texts = new Map();
function handle(e) {
  if (e.type === 'TEXT_MESSAGE_START') texts.set(e.messageId, '');
  if (e.type === 'TEXT_MESSAGE_CONTENT') {
    texts.set(e.messageId, texts.get(e.messageId) + e.delta);
    show(e.messageId, 'assistant', texts.get(e.messageId));
  }
  if (e.type === 'TEXT_MESSAGE_END')
    messages.push({ id: e.messageId, role: 'assistant', content: texts.get(e.messageId) });
  if (e.type === 'TOOL_CALL_START') {
    show(e.toolCallId, 'tool', `${e.toolCallName} …`);
    const call = { id: e.toolCallId, type: 'function', function: { name: e.toolCallName, arguments: '' } };
    messages.push({ id: e.parentMessageId, role: 'assistant', toolCalls: [call] });
  }
  if (e.type === 'TOOL_CALL_RESULT') {
    show(e.toolCallId, 'tool', e.content);
    messages.push({ id: e.messageId, role: 'tool', toolCallId: e.toolCallId, content: e.content });
  }
  // The thread now holds what this page sent (under its own ids): the history to resend from here on.
  if (e.type === 'MESSAGES_SNAPSHOT') messages.splice(0, messages.length, ...e.messages);
  if (e.type === 'RUN_ERROR') show(`error-${Date.now()}`, 'tool', `Refused: ${e.message}`);
  if (e.type === 'RUN_FINISHED' && e.outcome?.type === 'interrupt') ask(e.outcome.interrupts);
}

// Every interrupt needs an answer before the next run: collect them, then resume once.
function ask(interrupts) {
  const answers = new Map();
  for (const i of interrupts) {
    const div = Object.assign(document.createElement('div'), { className: 'interrupt' });
    div.append(Object.assign(document.createElement('p'), { textContent: i.message }));
    for (const [label, done, payload] of [
      ['Approve', 'Approved', { approved: true }],
      ['Reject', 'Rejected', { approved: false, message: 'Not this one' }],
    ]) {
      const button = Object.assign(document.createElement('button'), { textContent: label });
      button.onclick = () => {
        // The fingerprint of what the call acts on, as shown: if it changed since, the decision is refused.
        const seen = i.metadata?.fingerprint ? { metadata: { fingerprint: i.metadata.fingerprint } } : {};
        answers.set(i.id, { interruptId: i.id, status: 'resolved', payload, ...seen });
        div.replaceChildren(Object.assign(document.createElement('p'), { textContent: `${done}: ${i.message}` }));
        if (answers.size === interrupts.length) void run([...answers.values()]);
      };
      div.append(button);
    }
    box.append(div);
  }
}

// A reload (or a second front end) starts from the thread as the server holds it: its messages, and the interrupts
// still open. A thread not started yet is a 404: nothing to show.
async function reopen() {
  const res = await fetch(`/ag-ui/${agent}/threads/${threadId}`);
  if (!res.ok) return;
  const thread = await res.json();
  for (const m of thread.messages) {
    messages.push(m);
    if (m.role === 'user' || (m.role === 'assistant' && m.content)) show(m.id, m.role, m.content);
    for (const call of m.toolCalls ?? []) show(call.id, 'tool', `${call.function.name} …`);
    if (m.role === 'tool') show(m.toolCallId, 'tool', m.content);
  }
  if (thread.interrupts.length) ask(thread.interrupts);
}
if (known) void reopen();

document.getElementById('ask').onsubmit = (event) => {
  event.preventDefault();
  const input = document.getElementById('message');
  const message = { id: crypto.randomUUID(), role: 'user', content: input.value || input.placeholder };
  messages.push(message);
  show(message.id, 'user', message.content);
  input.value = '';
  void run();
};
