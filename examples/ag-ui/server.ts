// The example page's server: serves index.html, page.js and page.css, and passes /ag-ui/* on to `countersign serve`
// with the signed-in user in X-Forwarded-User, the header `countersign serve --approver-header X-Forwarded-User` trusts on
// loopback. Here "signed in" is whoever runs it (EXAMPLE_USER, else the login name, as npm start's inbox has it); in
// production this is your proxy or app server, which knows the user from its own session (docs/ag-ui.md, "Identity
// behind a proxy").
//
//   npx tsx examples/ag-ui/server.ts [serve URL, default http://127.0.0.1:8235] [port, default 8300]
import { readFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { userInfo } from 'node:os';
import { join } from 'node:path';

const FILES: Record<string, string> = {
  '/': 'index.html',
  '/page.js': 'page.js',
  '/page.css': 'page.css',
};
const TYPES: Record<string, string> = { html: 'text/html', js: 'text/javascript', css: 'text/css' };

export interface ExamplePageOptions {
  /** Where `countersign serve` listens (default http://127.0.0.1:8235, as docs/ag-ui.md starts it; 8234 is npm start's inbox). */
  serveUrl?: string;
  /** Who the page's user is, as the proxy would know it. */
  user: string;
  port?: number;
}

export function startExamplePage(o: ExamplePageOptions): Promise<{ url: string; server: Server }> {
  const serveUrl = o.serveUrl ?? 'http://127.0.0.1:8235';
  const server = createServer((req, res) => {
    const file = FILES[req.url ?? ''];
    if (req.method === 'GET' && file) {
      res.writeHead(200, { 'content-type': TYPES[file.split('.').pop()!]! });
      return res.end(readFileSync(join(__dirname, file)));
    }
    if (!req.url?.startsWith('/ag-ui/')) return res.writeHead(404).end();
    // The user's identity is the proxy's to set: whatever the browser sent in its place is dropped.
    const headers = { 'content-type': String(req.headers['content-type'] ?? ''), 'x-forwarded-user': o.user };
    const body: Buffer[] = [];
    req.on('data', (b: Buffer) => body.push(b));
    req.on('end', () => {
      const init = { method: req.method, headers, ...(req.method === 'POST' ? { body: Buffer.concat(body) } : {}) };
      fetch(`${serveUrl}${req.url}`, init)
        .then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
          for await (const chunk of answer.body ?? []) res.write(chunk);
          res.end();
        })
        .catch((err: Error) => res.writeHead(502).end(`countersign serve is out of reach: ${err.message}`));
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 8300, '127.0.0.1', () => {
      const address = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${address.port}`, server });
    });
  });
}

if (require.main === module) {
  const port = process.argv[3] ? Number(process.argv[3]) : undefined;
  startExamplePage({ serveUrl: process.argv[2], user: process.env.EXAMPLE_USER ?? userInfo().username, port }).then(
    ({ url }) => console.log(`the example page: ${url}`),
    (err: NodeJS.ErrnoException) => {
      const taken = err.code === 'EADDRINUSE';
      console.error(taken ? `port ${port ?? 8300} is taken: give another as the second argument` : err.message);
      process.exitCode = 1;
    },
  );
}
