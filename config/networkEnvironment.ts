// What a stdio MCP server (an agent's, or the gateway's upstream) gets of our environment beyond the MCP SDK's safe
// minimum (PATH, HOME, USER, SHELL, TERM): how this machine reaches the network — extra CA certificates and proxies —
// so `npx -y some-server` can fetch its package behind a corporate proxy or TLS inspection, as it can in our shell.
// Never our settings or secrets; the config's own `env` comes on top.
const NETWORK_VARIABLES = [
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'no_proxy',
] as const;

/** The network variables this process has, to pass to a server it starts. */
export function networkEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of NETWORK_VARIABLES) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}
