// `zeus-desktop --mcp` while the tray app runs (SPEC §12 "stdio"): the real tray app (offscreen, its own home and
// runtime folder, one folder approved with --workspace) and the official MCP SDK's stdio client starting
// `zeus-desktop --mcp --workspace DIR` with the same folders. The call must run in the tray's sandbox (its MCP
// session ids, local-mcp-…, which a process of its own never makes), a folder the tray has not approved is refused
// with exit 125, closing the client removes the container, and the tray quitting ends a bridge with exit 1.
//
//   node sdk-bridge-client.mjs APP_BINARY RUNTIME
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [app, runtime = 'docker'] = process.argv.slice(2);
const sdkRoot = process.env.ZEUS_TEST_MCP_SDK;
if (!app || !sdkRoot) {
    console.error('usage: ZEUS_TEST_MCP_SDK=DIR node sdk-bridge-client.mjs APP_BINARY [RUNTIME]');
    process.exit(2);
}
const require = createRequire(join(sdkRoot, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const image = process.env.ZEUS_TEST_IMAGE || 'zeus-desktop-sandbox:test';

let failures = 0;
function check(ok, what, seen) {
    console.log(`${ok ? 'PASS' : 'FAIL'}: ${what}${ok ? '' : `\n      saw: ${JSON.stringify(seen)}`}`);
    if (!ok) failures += 1;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const textOf = (result) => (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join('');
const containersOf = (folder) =>
    execFileSync(runtime, ['ps', '-aq', '--filter', `label=zeus.desktop.workspace=${folder}`], { encoding: 'utf8' })
        .split('\n')
        .filter(Boolean);
const labelsOf = (container) =>
    JSON.parse(execFileSync(runtime, ['inspect', '--format', '{{json .Config.Labels}}', container], { encoding: 'utf8' }));
async function waitFor(condition, ms) {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(200)) {
        if (condition()) return true;
    }
    return condition();
}

const home = realpathSync(mkdtempSync(join(tmpdir(), 'zeus-bridge-home-')));
const runtimeDir = join(home, 'runtime');
mkdirSync(runtimeDir, { mode: 0o700 });
const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'zeus-bridge-ws-')));
const unapproved = realpathSync(mkdtempSync(join(tmpdir(), 'zeus-bridge-other-')));
writeFileSync(join(workspace, 'hello.txt'), 'hello from the tray-approved folder\n');

// One user's folders for the tray and every bridge; never the user's own. No session bus: nothing here needs
// the keychain, and the tray must not wait for one.
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share'),
              XDG_RUNTIME_DIR: runtimeDir, QT_QPA_PLATFORM: 'offscreen', QT_LOGGING_RULES: 'zeus.*.info=true' };
delete env.ZEUS_DESKTOP_TOKEN;
delete env.DBUS_SESSION_BUS_ADDRESS;
delete env.DISPLAY;

const deadline = setTimeout(() => {
    console.error('FAIL: the whole run took more than 240 s');
    process.exit(1);
}, 240000);

let trayLog = '';
const tray = spawn(app, ['--workspace', workspace, '--runtime', runtime, '--image', image], { env });
tray.stdout.on('data', (d) => { trayLog += d; });
tray.stderr.on('data', (d) => { trayLog += d; });
let trayExit = null;
tray.on('exit', (code, signal) => { trayExit = { code, signal }; });

const listening = await waitFor(() => readdirSync(runtimeDir).some((f) => f.endsWith('.socket')), 30000);
check(listening && trayExit === null, 'the tray app runs and listens on its socket', trayLog.slice(-2000));

let bridgeLog = '';
const client = new Client({ name: 'zeus-sdk-bridge-test', version: '1.0.0' });
const transport = new StdioClientTransport({ command: app, args: ['--mcp', '--workspace', workspace], env, stderr: 'pipe' });
transport.stderr?.on('data', (d) => { bridgeLog += d; });
let session = '';
try {
    await client.connect(transport);
    check(client.getServerVersion()?.name === 'zeus-desktop', 'initialize is answered by zeus-desktop',
          client.getServerVersion());
    const { tools } = await client.listTools();
    check(tools.some((t) => t.name === 'run_command'), 'tools/list has run_command', tools.map((t) => t.name));

    // The tray may still be checking the runtime: no_runtime until then.
    let first;
    for (const end = Date.now() + 90000; Date.now() < end; await sleep(1000)) {
        first = await client.callTool({ name: 'run_command',
                                        arguments: { command: 'cat /workspace/hello.txt; echo $((6*7))' } });
        if (!/no_runtime|still being checked/.test(textOf(first))) break;
    }
    check(!first.isError && textOf(first).includes('hello from the tray-approved folder') && textOf(first).includes('42'),
          'run_command runs in the folder the tray approved', first);
    check(/serving through the tray app: session local-mcp-/.test(bridgeLog),
          'the bridge says it serves through the tray app', bridgeLog);

    const containers = containersOf(workspace);
    check(containers.length === 1, 'one container serves the bridged session', containers);
    if (containers.length === 1) {
        const labels = labelsOf(containers[0]);
        session = labels['zeus.desktop.session'] || '';
        check(session.startsWith('local-mcp-'), "the container is the tray's MCP session's (local-mcp-…)", labels);
        check(Boolean(labels['zeus.desktop.owner']), 'it carries the owner label', labels);
    }
    check(session !== '' && trayLog.includes(`MCP bridge: session ${session}`), "the tray's log names the session",
          trayLog.slice(-3000));

    // Outside the approved folder: refused by the tray's own gate.
    const outside = await client.callTool({ name: 'run_command',
                                            arguments: { command: 'touch /workspace/escaped', working_directory: unapproved } });
    check(outside.isError === true && textOf(outside).includes('workspace_not_approved'),
          "a working_directory the tray has not approved is refused", outside);
} catch (error) {
    check(false, 'the bridged session ran without a protocol error', String(error?.stack || error));
} finally {
    await client.close();
}

// The client closed: the tray ends the session and removes its container.
const removed = await waitFor(() => containersOf(workspace).length === 0, 20000);
check(removed, 'no container is left once the client closed', containersOf(workspace));
check(session === '' || (await waitFor(() => trayLog.includes(`MCP bridge closed: ending session ${session}`), 5000)),
      'the tray ended the session', trayLog.slice(-2000));

// A folder the tray has not approved: the bridge exits 125 with the tray's reason, nothing on stdout.
const refused = spawnSync(app, ['--mcp', '--workspace', unapproved], { env, input: '', encoding: 'utf8', timeout: 30000 });
check(refused.status === 125 && refused.stderr.includes('approve it in the tray app') && refused.stdout === '',
      'an unapproved --workspace is refused with exit 125', { status: refused.status, stderr: refused.stderr,
                                                              stdout: refused.stdout });

// The tray quits while a bridge is open: the bridge ends with exit 1 and says why.
const bridge = spawn(app, ['--mcp', '--workspace', workspace], { env, stdio: ['pipe', 'pipe', 'pipe'] });
let lateLog = '';
bridge.stderr.on('data', (d) => { lateLog += d; });
let bridgeExit = null;
bridge.on('exit', (code) => { bridgeExit = code; });
const bridged = await waitFor(() => lateLog.includes('serving through the tray app'), 15000);
check(bridged, 'a second bridge is served', lateLog);
tray.kill('SIGTERM');
const ended = await waitFor(() => bridgeExit !== null, 30000);
check(ended && bridgeExit === 1 && lateLog.includes('the tray app closed the MCP bridge'),
      'the tray quitting ends the bridge with exit 1 and a reason', { bridgeExit, lateLog });
bridge.stdin.end();
const trayEnded = await waitFor(() => trayExit !== null, 30000);
check(trayEnded && trayExit?.code === 0, 'the tray app quits cleanly', { trayExit, log: trayLog.slice(-2000) });
if (!trayEnded) tray.kill('SIGKILL');
check(containersOf(workspace).length === 0, 'no container is left after the tray quit', containersOf(workspace));

clearTimeout(deadline);
for (const dir of [home, workspace, unapproved]) rmSync(dir, { recursive: true, force: true });
console.log(failures === 0 ? 'all checks passed' : `${failures} check(s) failed`);
process.exit(failures === 0 ? 0 : 1);
