// `zeus-desktop --mcp` driven by the official MCP TypeScript SDK (@modelcontextprotocol/sdk from the npm
// registry), as Claude Code, Cursor or VS Code start it: a stdio server with one approved folder, on a real engine.
//
//   node sdk-client.mjs APP_BINARY RUNTIME
// ZEUS_TEST_MCP_SDK names the folder whose node_modules holds the SDK (tests/harness/engines.sh ensure_mcp_sdk).
// Exits 0 when every check passed; prints each check and what it saw.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [app, runtime = 'docker'] = process.argv.slice(2);
const sdkRoot = process.env.ZEUS_TEST_MCP_SDK;
if (!app || !sdkRoot) {
    console.error('usage: ZEUS_TEST_MCP_SDK=DIR node sdk-client.mjs APP_BINARY [RUNTIME]');
    process.exit(2);
}
const require = createRequire(join(sdkRoot, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
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

const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'zeus-mcp-sdk-')));
const config = mkdtempSync(join(tmpdir(), 'zeus-mcp-config-'));
writeFileSync(join(workspace, 'hello.txt'), 'hello from the host folder\n');

// Never the user's settings; the app's log on this test's stderr. A runtime folder of its own: a tray app of the
// user's would otherwise take the connection (--mcp bridges to it; sdk-bridge-client.mjs tests that).
const runtimeDir = mkdtempSync(join(tmpdir(), 'zeus-mcp-runtime-'));
const appEnv = { ...process.env, XDG_CONFIG_HOME: config, XDG_DATA_HOME: config, XDG_RUNTIME_DIR: runtimeDir };
// A secret in the keychain (the harness's private keyring), handed to commands that name it.
const secretName = `ZEUS_MCP_TEST_${process.pid}`;
const secretValue = `mcp-secret-${process.pid}-${Date.now()}`;
execFileSync(app, ['--set-secret', secretName], { input: secretValue, env: appEnv });

const transport = new StdioClientTransport({
    command: app,
    args: ['--mcp', '--workspace', workspace, '--runtime', runtime, '--image', image, '--allow-secret', secretName],
    env: appEnv,
    stderr: 'inherit',
});
const client = new Client({ name: 'zeus-sdk-test', version: '1.0.0' });
const deadline = setTimeout(() => {
    console.error('FAIL: the whole run took more than 240 s');
    process.exit(1);
}, 240000);

try {
    await client.connect(transport);
    console.log(`SDK ${sdkVersion}, server ${JSON.stringify(client.getServerVersion())}`);
    check(client.getServerVersion()?.name === 'zeus-desktop', 'initialize names the server zeus-desktop',
          client.getServerVersion());
    check(client.getServerCapabilities()?.tools !== undefined, 'the server offers tools', client.getServerCapabilities());

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    check(JSON.stringify(names) === JSON.stringify(['apply_changes', 'discard_changes', 'list_changes', 'open_port',
                                                    'run_command']),
          'tools/list has the five tools of SPEC §12', names);

    // A command in the folder: the file the host put there, the command's own output, its exit code.
    const first = await client.callTool({ name: 'run_command',
                                          arguments: { command: 'cat /workspace/hello.txt; pwd; echo $((6*7))' } });
    check(!first.isError && textOf(first).includes('hello from the host folder') && textOf(first).includes('42'),
          'run_command sees the approved folder at /workspace', first);
    check(first.structuredContent?.exit_code === 0 && typeof first.structuredContent?.duration_ms === 'number',
          'structuredContent has exit_code 0 and duration_ms', first.structuredContent);
    check(textOf(first).includes('/workspace'), 'the command runs in /workspace', textOf(first));

    // A command that fails is still a result: its exit code, not a protocol error.
    const three = await client.callTool({ name: 'run_command', arguments: { command: 'echo bye; exit 3' } });
    check(three.structuredContent?.exit_code === 3 && textOf(three).includes('bye'), 'exit 3 comes back as exit_code 3',
          three);

    // The host is not the sandbox: the host's own files are not there.
    const host = await client.callTool({ name: 'run_command', arguments: { command: 'ls /root/.ssh 2>&1; cat /etc/hostname' } });
    check(!textOf(host).includes('id_rsa') && !textOf(host).includes(execFileSync('hostname', { encoding: 'utf8' }).trim()),
          'the command does not run on the host', textOf(host));

    // A folder nobody approved: a tool error naming why, nothing run.
    const outside = await client.callTool({ name: 'run_command',
                                            arguments: { command: 'touch /workspace/escaped', working_directory: '/etc' } });
    check(outside.isError === true && textOf(outside).includes('workspace_not_approved'),
          'a working_directory outside the approved folder is refused (workspace_not_approved)', outside);

    // The allowlist: a host no rule allows is refused, and the tool result names the host.
    const denied = await client.callTool({ name: 'run_command',
                                           arguments: { command: 'wget -qO- http://example.com/ 2>&1; echo exit=$?' } });
    check(textOf(denied).includes('403') && textOf(denied).includes('example.com') && !textOf(denied).includes('exit=0'),
          'a host the allowlist does not allow is refused (403) and named', textOf(denied));

    // A secret by name: the command gets it, the client never sees it.
    const secret = await client.callTool({ name: 'run_command',
                                           arguments: { command: `echo "token=$${secretName}"`, secrets: [secretName] } });
    check(!JSON.stringify(secret).includes(secretValue) && textOf(secret).includes(`[REDACTED:${secretName}]`),
          'a secret reaches the command and comes back redacted', secret);

    // A timeout ends the command and says so.
    const slow = await client.callTool({ name: 'run_command', arguments: { command: 'sleep 20', timeout_s: 1 } });
    check(slow.isError === true && /time/i.test(textOf(slow)), 'timeout_s ends a slow command as a tool error', slow);

    // Long output streams as progress notifications while the command runs.
    const progress = [];
    const streamed = await client.callTool(
        { name: 'run_command', arguments: { command: 'for i in 1 2 3 4 5; do echo line-$i; sleep 0.3; done' } },
        undefined, { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true });
    check(textOf(streamed).includes('line-5'), 'the streamed call ends with all its output', textOf(streamed));
    check(progress.length >= 2, 'progress notifications arrive while it runs', progress);
    check(progress.every((p, i) => i === 0 || p.progress > progress[i - 1].progress), 'progress grows', progress);

    // Cancelled by the client: the SDK sends notifications/cancelled; the command stops; the next call works.
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
    const ps = await client.callTool({ name: 'run_command', arguments: { command: 'ps' } });
    check(ps.structuredContent?.exit_code === 0 && textOf(ps).includes('PID') && !textOf(ps).includes('sleep 60'),
          'the cancelled command is not left running in the container, and the next call runs', textOf(ps));

    check(containersOf(workspace).length === 1, 'one container serves the connection', containersOf(workspace));
} catch (error) {
    check(false, 'the session ran without a protocol error', String(error?.stack || error));
} finally {
    await client.close();
}

// The client closed stdin: the server removes its container and exits.
let left = containersOf(workspace);
for (let i = 0; i < 50 && left.length > 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    left = containersOf(workspace);
}
check(left.length === 0, 'no container is left once the client closed', left);
// Review mode: the agent works on a copy; its change is listed, the folder untouched until apply_changes.
const review = new Client({ name: 'zeus-sdk-review-test', version: '1.0.0' });
try {
    await review.connect(new StdioClientTransport({
        command: app,
        args: ['--mcp', '--workspace', workspace, '--runtime', runtime, '--image', image, '--workspace-mode', 'review',
               '--allow-apply'],
        env: appEnv,
        stderr: 'inherit',
    }));
    const wrote = await review.callTool({ name: 'run_command',
                                          arguments: { command: 'echo from-the-agent > agent.txt && cat hello.txt' } });
    check(!wrote.isError && textOf(wrote).includes('hello from the host folder'), 'review mode copies the folder in',
          wrote);
    check(wrote.structuredContent?.changes_pending === true, 'run_command says changes are pending in review mode',
          wrote.structuredContent);
    check(!existsSync(join(workspace, 'agent.txt')), 'review mode leaves the folder untouched while the agent works',
          readdirSync(workspace));
    const listed = await review.callTool({ name: 'list_changes', arguments: {} });
    const changes = listed.structuredContent?.changes || [];
    check(changes.length === 1 && changes[0].path === 'agent.txt', 'list_changes names the new file', listed);
    check(containersOf(workspace).length === 1, 'one review container holds the copy', containersOf(workspace));
    const applied = await review.callTool({ name: 'apply_changes', arguments: { paths: ['agent.txt'] } });
    check(!applied.isError && existsSync(join(workspace, 'agent.txt'))
              && readFileSync(join(workspace, 'agent.txt'), 'utf8') === 'from-the-agent\n',
          'apply_changes writes it into the folder', applied);
    const after = await review.callTool({ name: 'run_command', arguments: { command: 'cat agent.txt' } });
    check(after.structuredContent?.changes_pending === false, 'once applied, nothing is pending',
          after.structuredContent);
} catch (error) {
    check(false, 'the review session ran without a protocol error', String(error?.stack || error));
} finally {
    await review.close();
}
left = containersOf(workspace);
for (let i = 0; i < 50 && left.length > 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    left = containersOf(workspace);
}
check(left.length === 0, 'no review container is left once everything was applied and the client closed', left);

clearTimeout(deadline);
execFileSync(app, ['--delete-secret', secretName], { env: appEnv });
rmSync(workspace, { recursive: true, force: true });
rmSync(config, { recursive: true, force: true });
rmSync(runtimeDir, { recursive: true, force: true });
console.log(failures === 0 ? 'all checks passed' : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
