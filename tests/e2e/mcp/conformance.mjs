// The official MCP conformance suite (@modelcontextprotocol/conformance, from the npm registry) against
// `zeus-desktop --mcp-http` on a real engine. Scenarios that need tools, resources or prompts this server does not
// have are listed with a reason in conformance-expected-failures.yml; everything else must pass.
//
//   node conformance.mjs APP_BINARY RUNTIME
// ZEUS_TEST_MCP_CONFORMANCE names the folder whose node_modules holds the suite (tests/harness/engines.sh
// ensure_mcp_conformance). Needs a keychain (the harness's private keyring).
//
// The suite's client sends no Authorization header and has no option for one. The server is not weakened for it:
// this script puts a test-only forwarding proxy on 127.0.0.1 in front of the real server, which adds the bearer
// token (what `claude mcp add --header` does for a real client) and otherwise passes every request and answer
// through unchanged, streams included. The Host the suite sends for the proxy's own address is mapped to the
// server's; any other Host (the DNS-rebinding scenario's) and every Origin reach the server as sent.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [app, runtime = 'docker'] = process.argv.slice(2);
const suiteRoot = process.env.ZEUS_TEST_MCP_CONFORMANCE;
if (!app || !suiteRoot) {
    console.error('usage: ZEUS_TEST_MCP_CONFORMANCE=DIR node conformance.mjs APP_BINARY [RUNTIME]');
    process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const image = process.env.ZEUS_TEST_IMAGE || 'zeus-desktop-sandbox:test';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'zeus-mcp-conformance-')));
const config = mkdtempSync(join(tmpdir(), 'zeus-mcp-conformance-config-'));
writeFileSync(join(workspace, 'hello.txt'), 'hello\n');
const appEnv = { ...process.env, XDG_CONFIG_HOME: config, XDG_DATA_HOME: config };

const server = spawn(app, ['--mcp-http', '0', '--mcp-http-token-reset', '--workspace', workspace, '--runtime', runtime,
                           '--image', image], { env: appEnv, stdio: ['ignore', 'inherit', 'pipe'] });
let stderr = '';
server.stderr.on('data', (chunk) => {
    stderr += chunk;
});
for (let i = 0; i < 300 && !/MCP over HTTP at (\S+)/.test(stderr); i += 1) {
    await sleep(100);
}
const upstream = new URL((stderr.match(/MCP over HTTP at (\S+)/) || [])[1] || 'http://127.0.0.1:1/mcp');
const token = (stderr.match(/shown only now\): (\S+)/) || [])[1] || '';
if (!token) {
    console.error(`FAIL: the server did not start:\n${stderr}`);
    server.kill('SIGTERM');
    process.exit(1);
}

const proxy = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    const own = [`127.0.0.1:${proxy.address().port}`, `localhost:${proxy.address().port}`];
    if (own.includes(String(req.headers.host).toLowerCase())) {
        headers.host = upstream.host;
    }
    const forward = http.request({ host: '127.0.0.1', port: upstream.port, method: req.method, path: req.url, headers },
                                 (answer) => {
                                     res.writeHead(answer.statusCode, answer.headers);
                                     answer.pipe(res);
                                 });
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${proxy.address().port}/mcp`;
console.log(`conformance: server at ${upstream.href}, through the token-adding proxy at ${url}`);

// The suite imports fs.globSync, which Node gained in 22: on an older Node a shim supplies a stub (unused by
// `server` runs).
const major = Number(process.versions.node.split('.')[0]);
const nodeArgs = major < 22 ? ['--import', join(here, 'node20-globsync.mjs')] : [];
const output = mkdtempSync(join(tmpdir(), 'zeus-mcp-conformance-results-'));
const suite = spawn(process.execPath, [...nodeArgs,
                                      join(suiteRoot, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
                                      'server', '--url', url, '--expected-failures',
                                      join(here, 'conformance-expected-failures.yml'), '-o', output],
                    { stdio: 'inherit' });
const code = await new Promise((resolve) => suite.on('exit', (c) => resolve(c ?? 1)));

proxy.close();
server.kill('SIGTERM');
const serverCode = await new Promise((resolve) => server.on('exit', (c) => resolve(c)));
if (serverCode !== 0) {
    console.error(`FAIL: the server ended with ${serverCode}:\n${stderr}`);
}
if (stderr.split(token).length - 1 !== 1) {
    console.error('FAIL: the token appeared on stderr other than in the line that shows it');
}
rmSync(workspace, { recursive: true, force: true });
rmSync(config, { recursive: true, force: true });
if (!process.env.ZEUS_TEST_KEEP_RESULTS) {
    rmSync(output, { recursive: true, force: true });
} else {
    console.log(`conformance: results kept in ${output}`);
}
process.exit(code === 0 && serverCode === 0 && stderr.split(token).length - 1 === 1 ? 0 : 1);
