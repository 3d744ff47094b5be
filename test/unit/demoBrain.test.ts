// The scripted model's default planner answers the seed requests the way the demos need.
import { type BrainItem, demoReply } from '../../devtools/demoBrain';

const EMAIL_TOOLS = ['lookup_contact', 'send_email', 'delete_record'];
const user = (text: string): BrainItem => ({ kind: 'message', role: 'user', text });

test('an email to an address becomes one send_email call', () => {
  expect(demoReply([user('Send an email to alice@example.com about the meeting tomorrow')], EMAIL_TOOLS)).toEqual({
    toolCalls: [
      {
        name: 'send_email',
        arguments: {
          to: 'alice@example.com',
          subject: 'Meeting tomorrow',
          body: 'Send an email to alice@example.com about the meeting tomorrow',
        },
      },
    ],
  });
});

test('"send the report to alice and delete DR-42" pauses on both calls in one turn', () => {
  const r = demoReply([user('Send the report to alice and delete the draft record DR-42')], EMAIL_TOOLS);
  expect(r.toolCalls?.map((c) => [c.name, c.arguments])).toEqual([
    [
      'send_email',
      {
        to: 'alice@example.com',
        subject: 'Report',
        body: 'Send the report to alice and delete the draft record DR-42',
      },
    ],
    ['delete_record', { record_id: 'DR-42' }],
  ]);
});

test('an unknown name is looked up first, and the found address is then mailed', () => {
  const first = demoReply([user('Look up bob and email him the agenda')], EMAIL_TOOLS);
  expect(first.toolCalls).toEqual([{ name: 'lookup_contact', arguments: { name: 'bob' } }]);
  const second = demoReply(
    [
      user('Look up bob and email him the agenda'),
      { kind: 'call', callId: 'c1', name: 'lookup_contact', arguments: '{"name":"bob"}' },
      { kind: 'output', callId: 'c1', output: 'bob@example.com' },
    ],
    EMAIL_TOOLS,
  );
  expect(second.toolCalls?.[0]).toMatchObject({ name: 'send_email', arguments: { to: 'bob@example.com' } });
});

test('weather: one call per city, temperature and weather told apart', () => {
  const r = demoReply(
    [user('What is the temperature in Oakland and San Francisco?')],
    ['get_temperature', 'get_weather'],
  );
  expect(r.toolCalls).toEqual([
    { name: 'get_temperature', arguments: { city: 'Oakland' } },
    { name: 'get_temperature', arguments: { city: 'San Francisco' } },
  ]);
  expect(demoReply([user("What's the weather in Paris?")], ['get_temperature', 'get_weather']).toolCalls).toEqual([
    { name: 'get_weather', arguments: { city: 'Paris' } },
  ]);
});

test('after the tools answered, the final text quotes every result', () => {
  const r = demoReply(
    [
      user('Send the report to alice and delete the draft record DR-42'),
      { kind: 'call', callId: 'a', name: 'send_email', arguments: '{"to":"alice@example.com"}' },
      { kind: 'call', callId: 'b', name: 'delete_record', arguments: '{"record_id":"DR-42"}' },
      { kind: 'output', callId: 'a', output: "Email sent to alice@example.com with subject 'Report'" },
      { kind: 'output', callId: 'b', output: 'Deletion requires manager approval' },
    ],
    EMAIL_TOOLS,
  );
  expect(r).toEqual({
    text: "send_email: Email sent to alice@example.com with subject 'Report'\ndelete_record: Deletion requires manager approval",
  });
});

test('a request no tool fits gets a plain answer', () => {
  expect(demoReply([user('hello')], EMAIL_TOOLS).text).toContain(
    'I can use: lookup_contact, send_email, delete_record',
  );
});
