// A stdio MCP server gets the SDK's minimum of our environment, how we reach the network (CA certificates, proxies)
// and its config's own env: never our settings or secrets. A real child process prints what it was given.
import { Tail, transportFor } from '../../activities/mcp/mcpClient';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

test('a stdio server is given our CA certificates and proxy, its own env, and none of our secrets', async () => {
  process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/inspection.pem';
  process.env.HTTPS_PROXY = 'http://proxy.internal:3128';
  process.env.OPENAI_API_KEY = 'sk-not-for-servers';
  process.env.COUNTERSIGN_LINK_SECRET = 'not-for-servers-either-0123456789abcdef';
  const script = `console.error(JSON.stringify({ ca: process.env.NODE_EXTRA_CA_CERTS, proxy: process.env.HTTPS_PROXY,
    own: process.env.OWN, key: process.env.OPENAI_API_KEY ?? null, link: process.env.COUNTERSIGN_LINK_SECRET ?? null,
    path: Boolean(process.env.PATH) }))`;
  const stderr = new Tail();
  const { transport, gone } = transportFor(
    { name: 'printer', command: process.execPath, args: ['-e', script], env: { OWN: 'mine' } },
    stderr,
  );
  await transport.start();
  await gone;
  expect(JSON.parse(stderr.text())).toEqual({
    ca: '/etc/ssl/inspection.pem',
    proxy: 'http://proxy.internal:3128',
    own: 'mine',
    key: null,
    link: null,
    path: true,
  });
});
