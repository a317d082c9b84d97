// `zeus-desktop --mcp-http` driven by the official MCP TypeScript SDK (@modelcontextprotocol/sdk from the npm
// registry) over Streamable HTTP, as `claude mcp add --transport http … --header "Authorization: Bearer …"` connects:
// the server on 127.0.0.1 with one approved folder, on a real engine, its token made by this run and shown once.
//
//   node sdk-http-client.mjs APP_BINARY RUNTIME
// ZEUS_TEST_MCP_SDK names the folder whose node_modules holds the SDK (tests/harness/engines.sh ensure_mcp_sdk).
// Needs a keychain (the harness's private keyring). Exits 0 when every check passed; prints each check.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [app, runtime = 'docker'] = process.argv.slice(2);
const sdkRoot = process.env.ZEUS_TEST_MCP_SDK;
if (!app || !sdkRoot) {
    console.error('usage: ZEUS_TEST_MCP_SDK=DIR node sdk-http-client.mjs APP_BINARY [RUNTIME]');
    process.exit(2);
}
const require = createRequire(join(sdkRoot, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { ElicitRequestSchema } = require('@modelcontextprotocol/sdk/types.js');
const sdkVersion = JSON.parse(readFileSync(join(sdkRoot, 'node_modules/@modelcontextprotocol/sdk/package.json'))).version;
const image = process.env.ZEUS_TEST_IMAGE || 'zeus-desktop-sandbox:test';

let failures = 0;
function check(ok, what, seen) {
    console.log(`${ok ? 'PASS' : 'FAIL'}: ${what}${ok ? '' : `\n      saw: ${JSON.stringify(seen)}`}`);
    if (!ok) failures += 1;
}
const textOf = (result) => (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const containersOf = (folder) =>
    execFileSync(runtime, ['ps', '-aq', '--filter', `label=zeus.desktop.workspace=${folder}`], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function settled(folder, count) {
    let now = containersOf(folder);
    // Up to 30 s: removing a container takes the engine a while on a loaded machine (Podman on vfs most).
    for (let i = 0; i < 150 && now.length !== count; i += 1) {
        await sleep(200);
        now = containersOf(folder);
    }
    return now;
}

const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'zeus-mcp-http-')));
const config = mkdtempSync(join(tmpdir(), 'zeus-mcp-http-config-'));
writeFileSync(join(workspace, 'hello.txt'), 'hello from the host folder\n');
const appEnv = { ...process.env, XDG_CONFIG_HOME: config, XDG_DATA_HOME: config };
const secretName = `ZEUS_MCP_HTTP_TEST_${process.pid}`;
const secretValue = `mcp-http-secret-${process.pid}-${Date.now()}`;
execFileSync(app, ['--set-secret', secretName], { input: secretValue, env: appEnv });

const deadline = setTimeout(() => {
    console.error('FAIL: the whole run took more than 240 s');
    process.exit(1);
}, 240000);

// A free port (0), a new token this run shows once on its stderr.
const server = spawn(app, ['--mcp-http', '0', '--mcp-http-token-reset', '--workspace', workspace, '--runtime', runtime,
                           '--image', image, '--allow-secret', secretName], { env: appEnv, stdio: ['ignore', 'pipe', 'pipe'] });
let stderr = '';
server.stderr.on('data', (chunk) => {
    stderr += chunk;
    process.stderr.write(chunk);
});
server.stdout.on('data', (chunk) => process.stderr.write(chunk));
for (let i = 0; i < 300 && !/MCP over HTTP at (\S+)/.test(stderr); i += 1) {
    await sleep(100);
}
const url = (stderr.match(/MCP over HTTP at (\S+)/) || [])[1];
const token = (stderr.match(/shown only now\): (\S+)/) || [])[1];
check(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/.test(url || ''), 'the server says its URL on 127.0.0.1', url);
check(/^[A-Za-z0-9_-]{43}$/.test(token || ''), 'a new token (32 bytes, base64url) is shown once', token?.length);

const headers = { Authorization: `Bearer ${token}` };
const connect = async (name, requestHeaders = headers) => {
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: requestHeaders } });
    await client.connect(transport);
    return { client, transport };
};
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
                                    params: { protocolVersion: '2025-06-18', capabilities: {},
                                              clientInfo: { name: 'raw', version: '1' } } });
const post = (extra) => fetch(url, { method: 'POST', body: initialize,
                                     headers: { 'Content-Type': 'application/json',
                                                Accept: 'application/json, text/event-stream', ...extra } });

try {
    // Refusals first: nobody without the token, no web page from another origin.
    const anonymous = await post({});
    check(anonymous.status === 401, 'a request without the token gets 401', anonymous.status);
    const wrong = await post({ Authorization: `Bearer ${token.slice(0, -1)}x` });
    check(wrong.status === 401, 'a wrong token gets 401', wrong.status);
    const foreign = await post({ ...headers, Origin: 'http://evil.example' });
    check(foreign.status === 403 && !foreign.headers.has('access-control-allow-origin'),
          'another Origin gets 403 and no CORS header', foreign.status);
    let sdkRefused = false;
    try {
        await connect('zeus-sdk-no-token', {});
    } catch (error) {
        sdkRefused = /401|nauthorized/.test(String(error));
    }
    check(sdkRefused, 'the SDK without the token cannot connect (401)', sdkRefused);

    const { client, transport } = await connect('zeus-sdk-http-test');
    console.log(`SDK ${sdkVersion}, server ${JSON.stringify(client.getServerVersion())}, session ${transport.sessionId}`);
    check(client.getServerVersion()?.name === 'zeus-desktop', 'initialize names the server zeus-desktop',
          client.getServerVersion());
    check(/^[0-9a-f]{32}$/.test(transport.sessionId || ''), 'the server issues a random Mcp-Session-Id',
          transport.sessionId);

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    check(JSON.stringify(names) === JSON.stringify(['apply_changes', 'discard_changes', 'list_changes', 'open_port',
                                                    'run_command']),
          'tools/list has the five tools of SPEC §12', names);

    const first = await client.callTool({ name: 'run_command',
                                          arguments: { command: 'cat /workspace/hello.txt; echo $((6*7))' } });
    check(!first.isError && textOf(first).includes('hello from the host folder') && textOf(first).includes('42')
              && first.structuredContent?.exit_code === 0,
          'run_command sees the approved folder and exits 0', first);
    const three = await client.callTool({ name: 'run_command', arguments: { command: 'echo bye; exit 3' } });
    check(three.structuredContent?.exit_code === 3 && textOf(three).includes('bye'), 'exit 3 comes back as exit_code 3',
          three);
    const secret = await client.callTool({ name: 'run_command',
                                           arguments: { command: `echo "token=$${secretName}"`, secrets: [secretName] } });
    check(!JSON.stringify(secret).includes(secretValue) && textOf(secret).includes(`[REDACTED:${secretName}]`),
          'a secret reaches the command and comes back redacted', secret);

    // Progress: the call's answer is an event stream carrying notifications/progress, then the result.
    const progress = [];
    const streamed = await client.callTool(
        { name: 'run_command', arguments: { command: 'for i in 1 2 3 4 5; do echo line-$i; sleep 0.3; done' } },
        undefined, { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true });
    check(textOf(streamed).includes('line-5'), 'the streamed call ends with all its output', textOf(streamed));
    check(progress.length >= 2 && progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress),
          'progress notifications arrive over the event stream and grow', progress);

    // Cancel: the SDK posts notifications/cancelled (202); the command stops; the next call runs.
    const abort = new AbortController();
    const started = Date.now();
    const cancelled = client.callTool({ name: 'run_command', arguments: { command: 'sleep 60; echo not-cancelled' } },
                                      undefined, { signal: abort.signal });
    setTimeout(() => abort.abort('the user pressed Esc'), 1500);
    let rejected = false;
    try {
        await cancelled;
    } catch {
        rejected = true;
    }
    check(rejected && Date.now() - started < 10000, 'an aborted call ends at once', Date.now() - started);
    // The SDK posts the cancel on a connection of its own, so the next call may reach the server first: the
    // command must be gone within a few seconds, not before the next POST.
    let ps = await client.callTool({ name: 'run_command', arguments: { command: 'ps' } });
    for (let i = 0; i < 20 && ps.structuredContent?.exit_code === 0 && textOf(ps).includes('sleep 60'); i += 1) {
        await sleep(250);
        ps = await client.callTool({ name: 'run_command', arguments: { command: 'ps' } });
    }
    check(ps.structuredContent?.exit_code === 0 && !textOf(ps).includes('sleep 60'),
          'the cancelled command is not left running, and the next call runs', textOf(ps));

    // A second session is a second sandbox session: its own container.
    const other = await connect('zeus-sdk-http-second');
    check(other.transport.sessionId !== transport.sessionId, 'a second client gets its own session',
          other.transport.sessionId);
    const again = await other.client.callTool({ name: 'run_command', arguments: { command: 'true' } });
    check(again.structuredContent?.exit_code === 0, 'the second session runs a command', again);
    check((await settled(workspace, 2)).length === 2, 'each session has its own container', containersOf(workspace));

    // DELETE ends a session: its container goes, its id is unknown from then on; the other session goes on.
    const ended = transport.sessionId;
    await transport.terminateSession();
    check((await settled(workspace, 1)).length === 1, 'DELETE ends the session and removes its container',
          containersOf(workspace));
    const gone = await fetch(url, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json',
                                                              Accept: 'application/json', 'Mcp-Session-Id': ended },
                                    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' }) });
    check(gone.status === 404, 'the ended session is unknown (404)', gone.status);
    const still = await other.client.callTool({ name: 'run_command', arguments: { command: 'echo still' } });
    check(textOf(still).includes('still'), 'the other session still runs commands', still);
    await other.client.close();
    await client.close();
} catch (error) {
    check(false, 'the HTTP sessions ran without a protocol error', String(error?.stack || error));
}

server.kill('SIGTERM');
const code = await new Promise((resolve) => server.on('exit', (c) => resolve(c)));
check(code === 0, 'SIGTERM ends the server with 0', code);
check((await settled(workspace, 0)).length === 0, 'no container is left once the server ended', containersOf(workspace));
check(stderr.split(token).length - 1 === 1, 'the token appears once on stderr (the line that shows it), never in a log line',
      stderr.split(token).length - 1);

// The next run reads the token from the keychain: it works again and is shown no more. It asks before every
// command (--approval ask-all): a client that declared elicitation is asked (SPEC §12 "Same gates").
const rerun = spawn(app, ['--mcp-http', '0', '--workspace', workspace, '--runtime', runtime, '--image', image,
                          '--approval', 'ask-all', '--deny-command', 'rm'],
                    { env: appEnv, stdio: ['ignore', 'ignore', 'pipe'] });
let rerunErr = '';
rerun.stderr.on('data', (chunk) => {
    rerunErr += chunk;
});
for (let i = 0; i < 300 && !/MCP over HTTP at (\S+)/.test(rerunErr); i += 1) {
    await sleep(100);
}
const rerunUrl = (rerunErr.match(/MCP over HTTP at (\S+)/) || [])[1];
const reused = rerunUrl && await fetch(rerunUrl, { method: 'POST', body: initialize,
                                                   headers: { ...headers, 'Content-Type': 'application/json',
                                                              Accept: 'application/json, text/event-stream' } });
check(reused?.status === 200, 'a later run takes the kept token from the keychain', reused?.status);
check(!rerunErr.includes(token) && !rerunErr.includes('shown only now'), 'a later run never shows the token', rerunErr);

// Command approval through the client's user: elicitation/create on the call's stream, answered as the user chose.
try {
    const questions = [];
    let choice = 'run_once';
    const asking = new Client({ name: 'zeus-sdk-http-elicitation', version: '1.0.0' },
                              { capabilities: { elicitation: {} } });
    asking.setRequestHandler(ElicitRequestSchema, async (request) => {
        questions.push(request.params);
        return choice === 'decline' ? { action: 'decline' } : { action: 'accept', content: { decision: choice } };
    });
    await asking.connect(new StreamableHTTPClientTransport(new URL(rerunUrl), { requestInit: { headers } }));
    const once = await asking.callTool({ name: 'run_command', arguments: { command: 'echo approved-once' } });
    const asked = questions[0] || {};
    const choices = asked.requestedSchema?.properties?.decision?.enum || [];
    check(questions.length === 1 && asked.message?.includes('echo approved-once') && asked.message?.includes(workspace)
              && JSON.stringify(choices) === JSON.stringify(['run_once', 'always_allow', 'deny']),
          'the client is asked once, with the command, the folder and the three choices', asked);
    check(!once.isError && textOf(once).includes('approved-once'), '"run_once" runs the command', once);
    choice = 'decline';
    const declined = await asking.callTool({ name: 'run_command', arguments: { command: 'echo never-shown' } });
    check(declined.isError && textOf(declined).includes('approval_denied') && declined.structuredContent?.output === ''
              && declined.structuredContent?.exit_code === null,
          'a declined question is approval_denied and nothing runs', declined);
    const before = questions.length;
    const denied = await asking.callTool({ name: 'run_command', arguments: { command: 'rm -rf /workspace/hello.txt' } });
    check(denied.isError && textOf(denied).includes('approval_denied') && questions.length === before
              && readFileSync(join(workspace, 'hello.txt'), 'utf8').includes('hello'),
          'a deny rule refuses without asking, and the file stays', { denied, asked: questions.length - before });
    choice = 'always_allow';
    // The prefix offered for `echo always` is "echo always"; a command it covers is no longer asked about.
    await asking.callTool({ name: 'run_command', arguments: { command: 'echo always' } });
    const asks = questions.length;
    const second = await asking.callTool({ name: 'run_command', arguments: { command: 'echo always again' } });
    check(!second.isError && textOf(second).includes('always again') && questions.length === asks,
          '"always_allow" adds the prefix: a command it covers runs without a question',
          { second, asked: questions.length - asks });
    await asking.close();
    // A client that cannot be asked is denied at once, as headless mode denies.
    const mute = new Client({ name: 'zeus-sdk-http-no-elicitation', version: '1.0.0' });
    await mute.connect(new StreamableHTTPClientTransport(new URL(rerunUrl), { requestInit: { headers } }));
    const started = Date.now();
    const refused = await mute.callTool({ name: 'run_command', arguments: { command: 'touch /workspace/mute' } });
    check(refused.isError && textOf(refused).includes('approval_denied') && Date.now() - started < 10000,
          'without elicitation the question is denied at once', { refused, ms: Date.now() - started });
    await mute.close();
} catch (error) {
    check(false, 'the approval questions ran without a protocol error', String(error?.stack || error));
}
rerun.kill('SIGTERM');
await new Promise((resolve) => rerun.on('exit', resolve));

clearTimeout(deadline);
execFileSync(app, ['--delete-secret', secretName], { env: appEnv });
rmSync(workspace, { recursive: true, force: true });
rmSync(config, { recursive: true, force: true });
console.log(failures === 0 ? 'all checks passed' : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
