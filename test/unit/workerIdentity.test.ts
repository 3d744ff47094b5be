// The agents a worker serves, carried in the identity it polls with (contract/workerIdentity.ts), and the one line that
// refuses a name none of a queue's workers serves (client/run/servedAgents.ts).
import { agentsServedBy, identityServing } from '../../contract/workerIdentity';
import { unknownAgentLine } from '../../client/run/servedAgents';

test('the agents go into the identity and come back out, any name', () => {
  const identity = identityServing('4242@build-7', ['email-assistant', 'refunds, EU', 'ünïcode agent']);
  expect(identity).toBe('4242@build-7 countersign-agents=email-assistant,refunds%2C%20EU,%C3%BCn%C3%AFcode%20agent');
  expect(agentsServedBy(identity)).toEqual(['email-assistant', 'refunds, EU', 'ünïcode agent']);
  expect(agentsServedBy(identityServing('4242@build-7', []))).toEqual([]);
});

test('a worker that does not say (another identity, too many agents to fit) is not read as serving none', () => {
  expect(agentsServedBy('4242@build-7')).toBeUndefined();
  expect(agentsServedBy('ops-worker-7')).toBeUndefined();
  expect(agentsServedBy('x countersign-agents=%E0%A4%A')).toBeUndefined();
  const many = Array.from({ length: 40 }, (_, i) => `agent-number-${i}`);
  expect(identityServing('4242@build-7', many)).toBe('4242@build-7');
});

test('the refusal names the queue, what its workers serve, and what to do', () => {
  expect(unknownAgentLine('emial-assistant', 'countersign', ['email-assistant', 'research'])).toBe(
    'no agent named "emial-assistant" on task queue "countersign" (its workers serve email-assistant, research): check the name, or start a worker that serves it',
  );
  expect(unknownAgentLine('refund', 'refunds', [])).toBe(
    'no agent named "refund" on task queue "refunds" (its workers serve none): check the name, or start a worker that serves it',
  );
});
