<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>main</name>
    <message>
        <source>Runs an AI agent&apos;s shell commands in a container that sees one folder.</source>
        <translation>在只能看到一个文件夹的容器中运行 AI 智能体的 shell 命令。</translation>
    </message>
    <message>
        <source>Print a diagnostics report and exit.</source>
        <translation>打印诊断报告后退出。</translation>
    </message>
    <message>
        <source>Container runtime: auto, apple, docker, podman.</source>
        <translation>容器运行时：auto、apple、docker、podman。</translation>
    </message>
    <message>
        <source>Sandbox image.</source>
        <translation>沙箱镜像。</translation>
    </message>
    <message>
        <source>Hardening profile: standard or hardened.</source>
        <translation>加固配置：standard（标准）或 hardened（加固）。</translation>
    </message>
    <message>
        <source>Working directory mounted at /workspace.</source>
        <translation>挂载到 /workspace 的工作目录。</translation>
    </message>
    <message>
        <source>Run one command in a fresh sandbox and exit.</source>
        <translation>在新的沙箱中运行一条命令后退出。</translation>
    </message>
    <message>
        <source>With --exec: timeout in seconds.</source>
        <translation>与 --exec 一起使用：超时时间（秒）。</translation>
    </message>
    <message>
        <source>Build the sandbox image and exit.</source>
        <translation>构建沙箱镜像后退出。</translation>
    </message>
    <message>
        <source>Serve tool calls without a display.</source>
        <translation>在无显示界面的情况下处理工具调用。</translation>
    </message>
    <message>
        <source>Backend WebSocket URL (wss://, or ws:// to loopback).</source>
        <translation>后端 WebSocket 地址（wss://，或仅限本机回环地址的 ws://）。</translation>
    </message>
    <message>
        <source>--timeout needs a positive number of seconds</source>
        <translation>--timeout 需要一个正的秒数</translation>
    </message>
    <message>
        <source>--exec needs --workspace DIR</source>
        <translation>--exec 需要 --workspace 目录</translation>
    </message>
    <message>
        <source>--headless needs --backend URL and --workspace DIR</source>
        <translation>--headless 需要 --backend 地址和 --workspace 目录</translation>
    </message>
    <message>
        <source>How commands reach the container: agent (default) or exec.</source>
        <translation>命令如何进入容器：agent（默认）或 exec。</translation>
    </message>
    <message>
        <source>Command approval for this run: auto (nothing is asked), ask-unsafe (ask for what is not read-only) or ask-all. Headless, what would be asked is denied.</source>
        <translation>本次运行的命令审批：auto（不询问）、ask-unsafe（非只读命令需询问）或 ask-all（全部询问）。无界面模式下，需要询问的命令会被拒绝。</translation>
    </message>
    <message>
        <source>Run commands starting with these words without asking (repeatable).</source>
        <translation>以这些词开头的命令无需询问即可运行（可重复）。</translation>
    </message>
    <message>
        <source>Refuse commands starting with these words, in every mode (repeatable).</source>
        <translation>在所有模式下拒绝以这些词开头的命令（可重复）。</translation>
    </message>
    <message>
        <source>--allow-command and --deny-command take plain words, such as &quot;git status&quot;: %1</source>
        <translation>--allow-command 和 --deny-command 只接受普通词语，例如 &quot;git status&quot;：%1</translation>
    </message>
    <message>
        <source>The sandbox&apos;s network: allowlist (default), none or open.</source>
        <translation>沙箱的网络：allowlist（默认）、none 或 open。</translation>
    </message>
    <message>
        <source>Allow a host through the allowlist (example.com, *.example.com, host:port, an address or a CIDR block); repeatable.</source>
        <translation>允许某个主机通过白名单（example.com、*.example.com、host:port、地址或 CIDR 网段）；可重复。</translation>
    </message>
    <message>
        <source>Deny a host, whatever allows it; repeatable.</source>
        <translation>拒绝某个主机，无论有何规则允许它；可重复。</translation>
    </message>
    <message>
        <source>The allowlist&apos;s preset: dev (package registries, GitHub) or locked.</source>
        <translation>白名单预设：dev（软件包仓库、GitHub）或 locked。</translation>
    </message>
    <message>
        <source>Use this address for a host and port (HOST:PORT:ADDRESS); repeatable.</source>
        <translation>对某个主机和端口使用此地址（HOST:PORT:ADDRESS）；可重复。</translation>
    </message>
    <message>
        <source>Send allowed sandbox connections through this HTTP proxy (http://[user:password@]host:port), or straight out with none. Default: the setting, then HTTPS_PROXY/HTTP_PROXY/NO_PROXY, then the system proxy.</source>
        <translation>让沙盒中被允许的连接经由此 HTTP 代理（http://[user:password@]host:port）发出，或用 none 直接连接。默认：设置，然后是 HTTPS_PROXY/HTTP_PROXY/NO_PROXY，然后是系统代理。</translation>
    </message>
    <message>
        <source>Store a secret in the OS keychain; its value is read from stdin.</source>
        <translation>将机密存入系统钥匙串；其值从标准输入读取。</translation>
    </message>
    <message>
        <source>Delete a secret from the keychain.</source>
        <translation>从钥匙串删除一个机密。</translation>
    </message>
    <message>
        <source>List the names of the stored secrets.</source>
        <translation>列出已存储机密的名称。</translation>
    </message>
    <message>
        <source>With --headless: approve the use of this secret (repeatable).</source>
        <translation>与 --headless 一起使用：批准使用此机密（可重复）。</translation>
    </message>
    <message>
        <source>With --headless: bind a secret to hosts (NAME=HOST[,HOST…], host rules or @github, @npm, @pypi); commands get a placeholder and the app puts the value into requests to those hosts only (repeatable).</source>
        <translation>与 --headless 一起使用：将机密绑定到主机（NAME=HOST[,HOST…]，主机规则或 @github、@npm、@pypi）；命令只得到占位符，应用只在发往这些主机的请求中填入真实值（可重复）。</translation>
    </message>
    <message>
        <source>--allow-host/--deny-host: %1</source>
        <translation>--allow-host/--deny-host：%1</translation>
    </message>
    <message>
        <source>--resolve: %1</source>
        <translation>--resolve：%1</translation>
    </message>
    <message>
        <source>--upstream-proxy: %1</source>
        <translation>--upstream-proxy：%1</translation>
    </message>
    <message>
        <source>--allow-secret: %1</source>
        <translation>--allow-secret：%1</translation>
    </message>
    <message>
        <source>--bind-secret: %1</source>
        <translation>--bind-secret：%1</translation>
    </message>
    <message>
        <source>use one of --set-secret, --delete-secret and --list-secrets at a time</source>
        <translation>一次只能使用 --set-secret、--delete-secret 和 --list-secrets 中的一个</translation>
    </message>
    <message>
        <source>Value of %1 (not shown): </source>
        <translation>%1 的值（不显示）：</translation>
    </message>
    <message>
        <source>zeus-desktop: no secrets are stored.</source>
        <translation>zeus-desktop：没有存储任何机密。</translation>
    </message>
    <message>
        <source>zeus-desktop: secret %1 stored in the keychain.</source>
        <translation>zeus-desktop：机密 %1 已存入钥匙串。</translation>
    </message>
    <message>
        <source>zeus-desktop: secret %1 deleted.</source>
        <translation>zeus-desktop：机密 %1 已删除。</translation>
    </message>
    <message>
        <source>How every folder of this run reaches the container: direct (bind mount) or review (a copy whose changes you review; refused on a remote engine in direct mode). Default: each folder&apos;s setting.</source>
        <translation>本次运行中每个文件夹如何进入容器：direct（绑定挂载）或 review（一份副本，其更改由你审阅；远程引擎上拒绝 direct 模式）。默认：各文件夹自己的设置。</translation>
    </message>
    <message>
        <source>With --diagnose or --changes: print JSON.</source>
        <translation>与 --diagnose 或 --changes 一起使用时：输出 JSON。</translation>
    </message>
    <message>
        <source>List the review copies kept for review, or with a SESSION argument the files changed in that session&apos;s copy.</source>
        <translation>列出保留待审阅的审阅副本；带 SESSION 参数时，列出该会话副本中已更改的文件。</translation>
    </message>
    <message>
        <source>Apply a review copy&apos;s changes to its folder: the PATH arguments, or every change that needs no confirmation of its own.</source>
        <translation>将审阅副本中的更改应用到其文件夹：应用 PATH 参数指定的更改，或所有无需单独确认的更改。</translation>
    </message>
    <message>
        <source>Discard a review copy: its container and its changes are removed.</source>
        <translation>丢弃审阅副本：删除其容器及其中的更改。</translation>
    </message>
    <message>
        <source>use one of --changes, --apply and --discard at a time</source>
        <translation>--changes、--apply 和 --discard 一次只能使用其中一个</translation>
    </message>
    <message>
        <source>--changes takes at most one SESSION</source>
        <translation>--changes 最多接受一个 SESSION</translation>
    </message>
    <message>
        <source>--discard takes one SESSION and nothing else</source>
        <translation>--discard 只接受一个 SESSION，不接受其他参数</translation>
    </message>
    <message>
        <source>Let the sandbox write the repository&apos;s metadata (.git) of every folder of this run. The host&apos;s git may then run code the agent writes.</source>
        <translation>允许沙盒写入本次运行中每个文件夹的仓库元数据（.git）。主机上的 git 随后可能运行代理写入的代码。</translation>
    </message>
    <message>
        <source>%1 must be %2</source>
        <translation>%1 必须是 %2</translation>
    </message>
    <message>
        <source>%1 or %2</source>
        <translation>%1 或 %2</translation>
    </message>
    <message>
        <source>Do not give the sandbox this computer&apos;s trusted root certificates (on by default: HTTPS through a TLS-inspecting network works as on the host).</source>
        <translation>不向沙箱提供本机信任的根证书（默认提供：在检查 TLS 的网络中，HTTPS 可像在本机上一样工作）。</translation>
    </message>
    <message>
        <source>--publish: %1</source>
        <translation>--publish：%1</translation>
    </message>
    <message>
        <source>Publish a port of every session&apos;s container on this computer&apos;s 127.0.0.1 only ([HOST_PORT:]CONTAINER_PORT; without HOST_PORT, or 0, a free one); repeatable.</source>
        <translation>将每个会话容器的一个端口发布到本机的 127.0.0.1（仅此地址）（[HOST_PORT:]CONTAINER_PORT；省略 HOST_PORT 或为 0 时自动选择空闲端口）；可重复。</translation>
    </message>
    <message>
        <source>With --headless: approve the backend&apos;s requests to publish a container port.</source>
        <translation>与 --headless 一起使用：批准后端发布容器端口的请求。</translation>
    </message>
    <message>
        <source>--expose-host: %1</source>
        <translation>--expose-host：%1</translation>
    </message>
    <message>
        <source>--expose-host: at most %1 ports</source>
        <translation>--expose-host：最多 %1 个端口</translation>
    </message>
    <message>
        <source>--expose-host: container port %1 is given twice</source>
        <translation>--expose-host：容器端口 %1 被指定了两次</translation>
    </message>
    <message>
        <source>Make a service on this computer&apos;s 127.0.0.1:HOST_PORT reachable at 127.0.0.1:CONTAINER_PORT inside every session&apos;s container (HOST_PORT[:CONTAINER_PORT]; the same port when CONTAINER_PORT is left out); logged like egress; needs the sandbox agent; repeatable, at most 16.</source>
        <translation>使本机 127.0.0.1:HOST_PORT 上的服务可在每个会话容器内的 127.0.0.1:CONTAINER_PORT 访问（HOST_PORT[:CONTAINER_PORT]；省略 CONTAINER_PORT 时使用相同端口）；像出站连接一样记录；需要沙箱代理；可重复，最多 16 个。</translation>
    </message>
    <message>
        <source>--mcp-http needs a port from 0 to 65535</source>
        <translation>--mcp-http 需要 0 到 65535 之间的端口</translation>
    </message>
    <message>
        <source>Be an MCP server on stdin and stdout for an agent on this computer; --workspace is repeatable.</source>
        <translation>作为本机代理的 MCP 服务器，通过标准输入和标准输出通信；--workspace 可重复。</translation>
    </message>
    <message>
        <source>Be an MCP server over HTTP on 127.0.0.1:PORT only (0: a free port, said on stderr), with the bearer token kept in the keychain; --workspace is repeatable.</source>
        <translation>仅在 127.0.0.1:PORT 上通过 HTTP 作为 MCP 服务器（0：任选空闲端口，并在标准错误输出中说明），持有者令牌保存在钥匙串中；--workspace 可重复。</translation>
    </message>
    <message>
        <source>With --mcp-http: make a new token, keep it in the keychain and show it once.</source>
        <translation>与 --mcp-http 一起使用：生成新令牌，保存在钥匙串中，并只显示一次。</translation>
    </message>
    <message>
        <source>With --mcp: let the client&apos;s apply_changes copy a review copy&apos;s changes into the folder (nobody is asked).</source>
        <translation>与 --mcp 一起使用：允许客户端的 apply_changes 将审阅副本的更改复制到文件夹中（不询问任何人）。</translation>
    </message>
</context>
<context>
    <name>zeus</name>
    <message>
        <source>No review copy is kept for session &quot;%1&quot;. zeus-desktop --changes lists them.</source>
        <translation>没有为会话“%1”保留审阅副本。zeus-desktop --changes 可列出已保留的审阅副本。</translation>
    </message>
    <message>
        <source>The review copy of &quot;%1&quot; names an unknown engine &quot;%2&quot;.</source>
        <translation>“%1”的审阅副本指定了未知的引擎“%2”。</translation>
    </message>
    <message>
        <source>Unreadable review record: %1</source>
        <translation>无法读取的审阅记录：%1</translation>
    </message>
    <message>
        <source>No review copies are kept.</source>
        <translation>没有保留任何审阅副本。</translation>
    </message>
    <message>
        <source>%1 changed files in the copy of %2 (session %3):</source>
        <translation>%2 的副本中有 %1 个已更改的文件（会话 %3）：</translation>
    </message>
    <message>
        <source>needs its own confirmation: %1</source>
        <translation>需要单独确认：%1</translation>
    </message>
    <message>
        <source>not applied as a file: %1</source>
        <translation>不作为文件应用：%1</translation>
    </message>
    <message>
        <source>left: %1 (needs its own confirmation: %2; name it to apply it)</source>
        <translation>未应用：%1（需要单独确认：%2；请指明该路径以应用它）</translation>
    </message>
    <message>
        <source>Not a change of this review copy: %1</source>
        <translation>不是此审阅副本中的更改：%1</translation>
    </message>
    <message>
        <source>Nothing is left to review: the review copy was removed.</source>
        <translation>已没有需要审阅的内容：审阅副本已被删除。</translation>
    </message>
    <message>
        <source>Discarded the review copy of %1 (session %2): its container was removed.</source>
        <translation>已丢弃 %1 的审阅副本（会话 %2）：其容器已被删除。</translation>
    </message>
    <message>
        <source>the repository: %1 entries changed, never applied as files; the agent&apos;s commits come with --apply into %2</source>
        <translation>仓库：%1 个条目有改动，从不作为文件应用；代理的提交随 --apply 进入 %2</translation>
    </message>
    <message>
        <source>The image&apos;s own certificate bundle could not be read: %1</source>
        <translation>无法读取镜像自带的证书包：%1</translation>
    </message>
    <message>
        <source>The image&apos;s own certificate bundle has all of them.</source>
        <translation>镜像自带的证书包包含全部这些证书。</translation>
    </message>
    <message>
        <source>%1 and %2 more</source>
        <translation>%1，另有 %2 个</translation>
    </message>
    <message>
        <source>%1 of them are not in the image&apos;s own bundle: %2.</source>
        <translation>其中 %1 个不在镜像自带的证书包中：%2。</translation>
    </message>
</context>
<context>
    <name>zeus::AppSettings</name>
    <message>
        <source>%1 contains the approved folder %2. A folder inside or around an approved one cannot be approved as well: revoke %2 first, or keep using it.</source>
        <translation>%1 包含已批准的文件夹 %2。已批准文件夹内部或外层的文件夹不能再被批准：请先撤销 %2，或继续使用它。</translation>
    </message>
    <message>
        <source>%1 is inside the approved folder %2. A folder inside or around an approved one cannot be approved as well: use %2, or revoke it first.</source>
        <translation>%1 位于已批准的文件夹 %2 之内。已批准文件夹内部或外层的文件夹不能再被批准：请使用 %2，或先撤销它。</translation>
    </message>
</context>
<context>
    <name>zeus::ApplyResultView</name>
    <message>
        <source>applied</source>
        <translation>已应用</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>conflict</source>
        <translation>冲突</translation>
    </message>
    <message>
        <source>refused</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>&amp;Take Theirs…</source>
        <translation>采用副本版本(&amp;T)…</translation>
    </message>
    <message>
        <source>Replace your version of the conflicting files with the copy&apos;s</source>
        <translation>用副本中的版本替换您那边有冲突的文件</translation>
    </message>
    <message>
        <source>What Apply did</source>
        <translation>应用结果</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>路径</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Applied %1, conflicts %2, refused %3</source>
        <translation>已应用 %1，冲突 %2，已拒绝 %3</translation>
    </message>
    <message>
        <source>, skipped %1</source>
        <translation>，已跳过 %1</translation>
    </message>
    <message>
        <source>A conflict is a file you changed since the copy was taken: it was left as you have it.</source>
        <translation>冲突是指自创建副本以来您修改过的文件：它保持您现有的版本不变。</translation>
    </message>
</context>
<context>
    <name>zeus::ApprovalDialog</name>
    <message>
        <source>Command waiting for approval</source>
        <translation>命令等待审批</translation>
    </message>
    <message>
        <source>Commands waiting for approval</source>
        <translation>等待审批的命令</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Command prefix to allow</source>
        <translation>要允许的命令前缀</translation>
    </message>
    <message>
        <source>&amp;Run Once</source>
        <translation>运行一次(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation>拒绝(&amp;D)</translation>
    </message>
    <message>
        <source>Folder:</source>
        <translation>文件夹：</translation>
    </message>
    <message>
        <source>Session:</source>
        <translation>会话：</translation>
    </message>
    <message>
        <source>Not covered:</source>
        <translation>未覆盖的部分：</translation>
    </message>
    <message>
        <source>Why:</source>
        <translation>原因：</translation>
    </message>
    <message>
        <source>Rule prefix:</source>
        <translation>规则前缀：</translation>
    </message>
    <message>
        <source>The agent wants to run this command in the sandbox:</source>
        <translation>智能体想在沙箱中运行以下命令：</translation>
    </message>
    <message>
        <source>%1 commands waiting for approval</source>
        <translation>%1 条命令等待审批</translation>
    </message>
    <message>
        <source>Commands starting with these words will run in this folder without asking.</source>
        <translation>以这些词开头的命令将在此文件夹中无需询问直接运行。</translation>
    </message>
    <message>
        <source>No rule can allow this part: it uses shell syntax that is always asked.</source>
        <translation>没有规则可以允许这一部分：它使用了总是需要询问的 shell 语法。</translation>
    </message>
    <message>
        <source>&amp;Always Allow “%1” Here</source>
        <translation>在此始终允许“%1”(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Always Allow</source>
        <translation>始终允许(&amp;A)</translation>
    </message>
    <message>
        <source>Denied in %1 s without an answer</source>
        <translation>若无应答，%1 秒后拒绝</translation>
    </message>
</context>
<context>
    <name>zeus::ApprovalSettingsPanel</name>
    <message>
        <source>Allow</source>
        <translation>允许</translation>
    </message>
    <message>
        <source>Ask</source>
        <translation>询问</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Approval mode</source>
        <translation>审批模式</translation>
    </message>
    <message>
        <source>Never ask (the sandbox is the boundary)</source>
        <translation>从不询问（以沙箱为边界）</translation>
    </message>
    <message>
        <source>Ask for commands that are not read-only</source>
        <translation>非只读命令需询问</translation>
    </message>
    <message>
        <source>Ask for every command</source>
        <translation>每条命令都询问</translation>
    </message>
    <message>
        <source>Rules</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Command prefix</source>
        <translation>命令前缀</translation>
    </message>
    <message>
        <source>Last matched</source>
        <translation>最近匹配</translation>
    </message>
    <message>
        <source>Kind of the new rule</source>
        <translation>新规则的类型</translation>
    </message>
    <message>
        <source>Command prefix of the new rule</source>
        <translation>新规则的命令前缀</translation>
    </message>
    <message>
        <source>e.g. npm run test</source>
        <translation>例如 npm run test</translation>
    </message>
    <message>
        <source>A&amp;dd Rule</source>
        <translation>添加规则(&amp;D)</translation>
    </message>
    <message>
        <source>Re&amp;move Rule</source>
        <translation>删除规则(&amp;M)</translation>
    </message>
    <message>
        <source>&amp;Folder:</source>
        <translation>文件夹(&amp;F)：</translation>
    </message>
    <message>
        <source>&amp;Approval:</source>
        <translation>审批(&amp;A)：</translation>
    </message>
    <message>
        <source>A rule is a command prefix in words (&quot;git status&quot; also covers &quot;git status -s&quot;). Deny beats ask beats allow, and deny rules apply in every mode. A command joined with &amp;&amp; ; | runs only if every part of it is allowed.</source>
        <translation>规则是由词语组成的命令前缀（&quot;git status&quot; 也覆盖 &quot;git status -s&quot;）。拒绝优先于询问，询问优先于允许；拒绝规则在所有模式下都生效。用 &amp;&amp; ; | 连接的命令，只有每一部分都被允许时才会运行。</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>Commands run in the sandbox without asking; deny rules still refuse.</source>
        <translation>命令在沙箱中运行，无需询问；拒绝规则仍然生效。</translation>
    </message>
    <message>
        <source>Read-only commands (ls, cat, grep, git status…) and allowed prefixes run at once; anything else waits for you. No answer in 2 minutes is Deny.</source>
        <translation>只读命令（ls、cat、grep、git status…）和已允许的前缀会立即运行；其他命令等待您的决定。2 分钟内无应答即拒绝。</translation>
    </message>
    <message>
        <source>Only allowed prefixes run at once; every other command waits for you. No answer in 2 minutes is Deny.</source>
        <translation>只有已允许的前缀会立即运行；其他每条命令都等待您的决定。2 分钟内无应答即拒绝。</translation>
    </message>
    <message>
        <source>A rule is plain words, such as “git status”: no &amp;&amp; ; | $ * or quotes left open.</source>
        <translation>规则只能是普通词语，例如“git status”：不能包含 &amp;&amp; ; | $ * 或未闭合的引号。</translation>
    </message>
    <message>
        <source>The rule could not be added (too many rules for this folder).</source>
        <translation>无法添加该规则（此文件夹的规则过多）。</translation>
    </message>
    <message>
        <source>Workspace mode</source>
        <translation>工作区模式</translation>
    </message>
    <message>
        <source>Direct: the folder is mounted</source>
        <translation>直接：挂载该文件夹</translation>
    </message>
    <message>
        <source>Review: a copy, changes reviewed before they apply</source>
        <translation>审阅：使用副本，更改经审阅后才应用</translation>
    </message>
    <message>
        <source>&amp;Workspace:</source>
        <translation>工作区(&amp;W)：</translation>
    </message>
    <message>
        <source>Commands write straight into this folder. Needs a local engine: on a remote one it is refused.</source>
        <translation>命令直接写入此文件夹。需要本地引擎：在远程引擎上会被拒绝。</translation>
    </message>
    <message>
        <source>Commands work on a copy of this folder in the container; you review the changes and apply what you want (Changes in the dashboard). Works on local and remote engines.</source>
        <translation>命令在容器中操作此文件夹的副本；由您审阅更改并应用想要的部分（主面板中的“更改”页）。适用于本地和远程引擎。</translation>
    </message>
    <message>
        <source>Let the sandbox write this repository&apos;s metadata (.git)</source>
        <translation>允许沙盒写入此仓库的元数据（.git）</translation>
    </message>
    <message>
        <source>Off by default. When on, the host&apos;s git may run code the agent writes into .git (hooks, config, commondir) the next time you or your shell prompt run git here.</source>
        <translation>默认关闭。开启后，下次你或你的 shell 提示符在此运行 git 时，主机上的 git 可能运行代理写入 .git 的代码（钩子、配置、commondir）。</translation>
    </message>
    <message>
        <source>The sandbox may write .git: the host&apos;s git may run code the agent writes there.</source>
        <translation>沙盒可以写入 .git：主机上的 git 可能运行代理在其中写入的代码。</translation>
    </message>
    <message>
        <source>The repository&apos;s metadata (.git) is read-only in the sandbox, so nothing the agent writes can make your git run code: git status, log and diff work, git add, commit and checkout fail. Use review mode to let the agent commit; its commits come home under refs/zeus/&lt;session&gt;/. Build files, editor tasks and .pre-commit-config.yaml are still writable here: review mode checks those too.</source>
        <translation>仓库的元数据（.git）在沙盒中是只读的，因此代理写入的任何内容都无法让你的 git 运行代码：git status、log 和 diff 可用，git add、commit 和 checkout 会失败。要让代理提交，请使用审阅模式；它的提交会带回到 refs/zeus/&lt;session&gt;/ 之下。构建文件、编辑器任务和 .pre-commit-config.yaml 在此仍可写入：审阅模式也会检查它们。</translation>
    </message>
    <message>
        <source>Host services reachable in the sandbox</source>
        <translation>沙箱中可访问的主机服务</translation>
    </message>
    <message>
        <source>none (e.g. 5432, 18080:8080)</source>
        <translation>无（例如 5432, 18080:8080）</translation>
    </message>
    <message>
        <source>Ports of services on this computer&apos;s 127.0.0.1 (a database, a local model server) that commands of this folder may reach inside the sandbox, at 127.0.0.1 there: PORT, or HOST_PORT:CONTAINER_PORT. Anything the sandbox runs can use them with whatever they allow a local client. Every connection is in the network log. A change ends this folder&apos;s running sandboxes.</source>
        <translation>本机 127.0.0.1 上的服务端口（数据库、本地模型服务器），此文件夹的命令可在沙箱内通过 127.0.0.1 访问：PORT 或 HOST_PORT:CONTAINER_PORT。沙箱中运行的任何程序都能以这些服务允许本地客户端的权限使用它们。每个连接都会记录在网络日志中。更改会结束此文件夹正在运行的沙箱。</translation>
    </message>
    <message>
        <source>Host &amp;services:</source>
        <translation>主机服务(&amp;S)：</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1: port %2 in the sandbox is given twice</source>
        <translation>%1：沙箱中的端口 %2 重复指定</translation>
    </message>
    <message>
        <source>at most %1 host services per folder</source>
        <translation>每个文件夹最多 %1 个主机服务</translation>
    </message>
</context>
<context>
    <name>zeus::AutostartEntry</name>
    <message>
        <source>On macOS, add %1 under System Settings › General › Login Items.</source>
        <translation>在 macOS 上，请在“系统设置 › 通用 › 登录项”中添加 %1。</translation>
    </message>
    <message>
        <source>Could not change the Windows start-up entry.</source>
        <translation>无法修改 Windows 启动项。</translation>
    </message>
    <message>
        <source>Could not remove %1.</source>
        <translation>无法删除 %1。</translation>
    </message>
    <message>
        <source>Could not create the folder %1.</source>
        <translation>无法创建文件夹 %1。</translation>
    </message>
    <message>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
</context>
<context>
    <name>zeus::BackendConnection</name>
    <message>
        <source>Disconnected</source>
        <translation>已断开</translation>
    </message>
    <message>
        <source>Signed out</source>
        <translation>未登录</translation>
    </message>
    <message>
        <source>Connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>Reconnecting</source>
        <translation>正在重新连接</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>TLS error: %1</source>
        <translation>TLS 错误：%1</translation>
    </message>
    <message>
        <source>connection closed (code %1)</source>
        <translation>连接已关闭（代码 %1）</translation>
    </message>
    <message>
        <source>connection failed</source>
        <translation>连接失败</translation>
    </message>
    <message>
        <source>no answer to ping within %1 ms: connection is dead</source>
        <translation>%1 毫秒内没有收到 ping 的应答：连接已失效</translation>
    </message>
    <message>
        <source>no answer from the backend within %1 ms</source>
        <translation>后端在 %1 毫秒内没有应答</translation>
    </message>
    <message>
        <source>The backend refused the sign-in token (HTTP %1). Sign in again.</source>
        <translation>后端拒绝了登录令牌（HTTP %1）。请重新登录。</translation>
    </message>
    <message>
        <source>Connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>Sign-in rejected</source>
        <translation>登录被拒绝</translation>
    </message>
    <message>
        <source>%1 bytes wait to be sent and %2 more would pass the limit of %3: the backend is not reading; closing (1013) and reconnecting</source>
        <translation>有 %1 字节等待发送，再加 %2 字节将超过 %3 字节的上限：后端没有读取数据；正在关闭连接（1013）并重新连接</translation>
    </message>
    <message>
        <source>Port %1 on this computer is held by another user (uid %2), not by the backend you run: Zeus Desktop does not connect, so that user gets neither your token nor a way to send commands. Stop that program or choose another port.</source>
        <translation>本机端口 %1 被另一个用户（uid %2）占用，而不是你运行的后端：Zeus Desktop 不会连接，因此该用户既拿不到你的令牌，也无法发送命令。请停止该程序或选择其他端口。</translation>
    </message>
</context>
<context>
    <name>zeus::BackendUrl</name>
    <message>
        <source>Enter the backend address, for example wss://backend.example.com/desktop.</source>
        <translation>请输入后端地址，例如 wss://backend.example.com/desktop。</translation>
    </message>
    <message>
        <source>The backend address is not a valid URL.</source>
        <translation>后端地址不是有效的 URL。</translation>
    </message>
    <message>
        <source>The backend address must start with wss:// (or ws:// to this computer only).</source>
        <translation>后端地址必须以 wss:// 开头（ws:// 仅允许连接本机）。</translation>
    </message>
    <message>
        <source>Unencrypted ws:// is allowed only to this computer (localhost); use wss:// for %1.</source>
        <translation>未加密的 ws:// 仅允许连接本机（localhost）；连接 %1 请使用 wss://。</translation>
    </message>
    <message>
        <source>The backend address must not contain a user name or password; sign in with a token instead.</source>
        <translation>后端地址中不能包含用户名或密码；请改用令牌登录。</translation>
    </message>
    <message>
        <source>The backend address must not carry a token; the token is kept in the system keychain.</source>
        <translation>后端地址中不能携带令牌；令牌保存在系统钥匙串中。</translation>
    </message>
</context>
<context>
    <name>zeus::ChangeApplier</name>
    <message>
        <source>%1 is a symbolic link on the host: nothing is written through it.</source>
        <translation>%1 在主机上是符号链接：不会通过它写入任何内容。</translation>
    </message>
    <message>
        <source>The folder %1 could not be created.</source>
        <translation>无法创建文件夹 %1。</translation>
    </message>
    <message>
        <source>%1 is not a folder on the host.</source>
        <translation>%1 在主机上不是文件夹。</translation>
    </message>
    <message>
        <source>The copy&apos;s version could not be read: %1</source>
        <translation>无法读取副本中的版本：%1</translation>
    </message>
    <message>
        <source>The content received from the copy does not match the change list.</source>
        <translation>从副本收到的内容与更改列表不符。</translation>
    </message>
    <message>
        <source>A temporary file could not be created next to it: %1</source>
        <translation>无法在其旁边创建临时文件：%1</translation>
    </message>
    <message>
        <source>Writing failed: %1</source>
        <translation>写入失败：%1</translation>
    </message>
    <message>
        <source>The file could not be put in place.</source>
        <translation>无法将文件放到位。</translation>
    </message>
    <message>
        <source>The symbolic link could not be created.</source>
        <translation>无法创建符号链接。</translation>
    </message>
    <message>
        <source>The symbolic link could not be put in place.</source>
        <translation>无法将符号链接放到位。</translation>
    </message>
    <message>
        <source>Inside .git: never applied as files.</source>
        <translation>位于 .git 内：从不作为文件应用。</translation>
    </message>
    <message>
        <source>Not a path inside the folder.</source>
        <translation>不是文件夹内的路径。</translation>
    </message>
    <message>
        <source>The folder no longer exists.</source>
        <translation>该文件夹已不存在。</translation>
    </message>
    <message>
        <source>On the host this is a socket, pipe or device.</source>
        <translation>它在主机上是套接字、管道或设备。</translation>
    </message>
    <message>
        <source>The host already holds this version.</source>
        <translation>主机上已是此版本。</translation>
    </message>
    <message>
        <source>Already gone from the host.</source>
        <translation>已从主机上删除。</translation>
    </message>
    <message>
        <source>Deleted on the host since the copy was made.</source>
        <translation>自创建副本以来已在主机上被删除。</translation>
    </message>
    <message>
        <source>Changed on the host since the copy was made.</source>
        <translation>自创建副本以来已在主机上被修改。</translation>
    </message>
    <message>
        <source>Created on the host since the copy was made.</source>
        <translation>自创建副本以来已在主机上被创建。</translation>
    </message>
    <message>
        <source>The folder still holds files on the host.</source>
        <translation>该文件夹在主机上仍包含文件。</translation>
    </message>
    <message>
        <source>It could not be deleted.</source>
        <translation>无法删除。</translation>
    </message>
    <message>
        <source>The folder could not be created.</source>
        <translation>无法创建该文件夹。</translation>
    </message>
    <message>
        <source>The file&apos;s mode could not be changed.</source>
        <translation>无法更改文件的权限模式。</translation>
    </message>
</context>
<context>
    <name>zeus::ChangeDetailView</name>
    <message>
        <source>1 byte</source>
        <translation>1 字节</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>Was a %1, is now a %2.</source>
        <translation>原为 %1，现为 %2。</translation>
    </message>
    <message>
        <source>Folder deleted (with what it held).</source>
        <translation>文件夹已删除（连同其中的内容）。</translation>
    </message>
    <message>
        <source>Folder added.</source>
        <translation>已添加文件夹。</translation>
    </message>
    <message>
        <source>Link target changed from %1 to %2.</source>
        <translation>链接目标已从 %1 改为 %2。</translation>
    </message>
    <message>
        <source>Link added, pointing to %1.</source>
        <translation>已添加链接，指向 %1。</translation>
    </message>
    <message>
        <source>Link deleted (it pointed to %1).</source>
        <translation>链接已删除（原指向 %1）。</translation>
    </message>
    <message>
        <source>Only the executable bit changed: the file is now executable.</source>
        <translation>仅可执行位发生了更改：该文件现在可执行。</translation>
    </message>
    <message>
        <source>Only the executable bit changed: the file is no longer executable.</source>
        <translation>仅可执行位发生了更改：该文件不再可执行。</translation>
    </message>
    <message>
        <source>Empty file added.</source>
        <translation>已添加空文件。</translation>
    </message>
    <message>
        <source>Empty file deleted.</source>
        <translation>已删除空文件。</translation>
    </message>
    <message>
        <source>No difference in the text.</source>
        <translation>文本没有差异。</translation>
    </message>
    <message>
        <source>This file changed on your computer since the copy was taken: applying it is a conflict.</source>
        <translation>自创建副本以来，此文件已在您的计算机上被修改：应用它会产生冲突。</translation>
    </message>
    <message>
        <source>Side by side</source>
        <translation>并排显示</translation>
    </message>
    <message>
        <source>Show the file before and after the change in two columns</source>
        <translation>以两栏显示更改前后的文件</translation>
    </message>
    <message>
        <source>Change detail</source>
        <translation>更改详情</translation>
    </message>
    <message>
        <source>The file before the change</source>
        <translation>更改前的文件</translation>
    </message>
    <message>
        <source>The file after the change</source>
        <translation>更改后的文件</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>now executable</source>
        <translation>现在可执行</translation>
    </message>
    <message>
        <source>no longer executable</source>
        <translation>不再可执行</translation>
    </message>
    <message>
        <source>Never applied: %1</source>
        <translation>从不应用：%1</translation>
    </message>
    <message>
        <source>Makes your computer run code: %1. Read it before you apply it; it needs its own confirmation.</source>
        <translation>会让您的计算机运行代码：%1。应用之前请先阅读；它需要单独确认。</translation>
    </message>
    <message>
        <source>Could not show this change: %1</source>
        <translation>无法显示此更改：%1</translation>
    </message>
    <message>
        <source>none (the file is new)</source>
        <translation>无（该文件是新文件）</translation>
    </message>
    <message>
        <source>%1 (SHA-256 %2)</source>
        <translation>%1（SHA-256 %2）</translation>
    </message>
    <message>
        <source>none (the file is deleted)</source>
        <translation>无（该文件已删除）</translation>
    </message>
    <message>
        <source>Binary file: no text diff.</source>
        <translation>二进制文件：没有文本差异。</translation>
    </message>
    <message>
        <source>Before: %1</source>
        <translation>之前：%1</translation>
    </message>
    <message>
        <source>After: %1</source>
        <translation>之后：%1</translation>
    </message>
</context>
<context>
    <name>zeus::ChangeListModel</name>
    <message>
        <source>Added</source>
        <translation>已添加</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>已修改</translation>
    </message>
    <message>
        <source>Deleted</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>Executable bit changed</source>
        <translation>可执行位已更改</translation>
    </message>
    <message>
        <source>Type changed</source>
        <translation>类型已更改</translation>
    </message>
    <message>
        <source>±0 bytes</source>
        <translation>±0 字节</translation>
    </message>
    <message>
        <source>This change is never applied as files.</source>
        <translation>此更改从不作为文件应用。</translation>
    </message>
    <message>
        <source>now executable</source>
        <translation>现在可执行</translation>
    </message>
    <message>
        <source>no longer executable</source>
        <translation>不再可执行</translation>
    </message>
    <message>
        <source>Makes your computer run code: %1</source>
        <translation>会让您的计算机运行代码：%1</translation>
    </message>
    <message>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Before: %1, after: %2</source>
        <translation>之前：%1，之后：%2</translation>
    </message>
    <message>
        <source>picked for Apply</source>
        <translation>已选中，将被应用</translation>
    </message>
    <message>
        <source>not picked</source>
        <translation>未选中</translation>
    </message>
    <message>
        <source>cannot be applied</source>
        <translation>无法应用</translation>
    </message>
    <message>
        <source>%1, runs code on your computer</source>
        <translation>%1，会在您的计算机上运行代码</translation>
    </message>
    <message>
        <source>Path</source>
        <translation>路径</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <source>Picked for Apply Selected</source>
        <translation>勾选的更改由“应用所选”应用</translation>
    </message>
    <message>
        <source>A added, M modified, D deleted, X executable bit changed, T type changed</source>
        <translation>A 已添加，M 已修改，D 已删除，X 可执行位已更改，T 类型已更改</translation>
    </message>
    <message>
        <source>How much the file grew or shrank</source>
        <translation>文件增大或缩小了多少</translation>
    </message>
</context>
<context>
    <name>zeus::ChangeSet</name>
    <message>
        <source>Inside .git: never applied as files; the agent&apos;s commits are fetched from a git bundle instead.</source>
        <translation>位于 .git 内：从不作为文件应用；代理的提交改为从 git bundle 获取。</translation>
    </message>
    <message>
        <source>a symbolic link that points outside the folder</source>
        <translation>指向文件夹之外的符号链接</translation>
    </message>
    <message>
        <source>becomes executable</source>
        <translation>变为可执行</translation>
    </message>
    <message>
        <source>git runs hooks on commit, checkout, merge and push</source>
        <translation>git 在提交、检出、合并和推送时运行钩子</translation>
    </message>
    <message>
        <source>git config can set hooksPath, fsmonitor, filters and aliases that run commands</source>
        <translation>git 配置可以设置会运行命令的 hooksPath、fsmonitor、过滤器和别名</translation>
    </message>
    <message>
        <source>names filter and diff drivers git runs on checkout and diff</source>
        <translation>指定 git 在检出和比较时运行的过滤器和差异驱动</translation>
    </message>
    <message>
        <source>submodule URLs: the next update fetches and checks out code from them</source>
        <translation>子模块 URL：下次更新会从中获取并检出代码</translation>
    </message>
    <message>
        <source>CI runs workflows, with the repository&apos;s secrets</source>
        <translation>CI 会运行工作流，并带有仓库的密钥</translation>
    </message>
    <message>
        <source>CI runs local actions, with the repository&apos;s secrets</source>
        <translation>CI 会运行本地 action，并带有仓库的密钥</translation>
    </message>
    <message>
        <source>CI configuration</source>
        <translation>CI 配置</translation>
    </message>
    <message>
        <source>make runs its recipes</source>
        <translation>make 会运行其中的规则命令</translation>
    </message>
    <message>
        <source>make includes it</source>
        <translation>make 会包含它</translation>
    </message>
    <message>
        <source>CMake runs it when the project is configured</source>
        <translation>配置项目时 CMake 会运行它</translation>
    </message>
    <message>
        <source>sets the compilers and tools CMake runs</source>
        <translation>设置 CMake 运行的编译器和工具</translation>
    </message>
    <message>
        <source>Meson runs it when the project is configured</source>
        <translation>配置项目时 Meson 会运行它</translation>
    </message>
    <message>
        <source>Gradle runs build scripts; IDEs do on import</source>
        <translation>Gradle 会运行构建脚本；IDE 在导入时也会运行</translation>
    </message>
    <message>
        <source>sets the JVM options Gradle starts with</source>
        <translation>设置 Gradle 启动时的 JVM 选项</translation>
    </message>
    <message>
        <source>the Gradle wrapper script</source>
        <translation>Gradle wrapper 脚本</translation>
    </message>
    <message>
        <source>decides which Gradle the wrapper downloads and runs</source>
        <translation>决定 wrapper 下载并运行哪个 Gradle</translation>
    </message>
    <message>
        <source>Maven runs its plugins; IDEs do on import</source>
        <translation>Maven 会运行其插件；IDE 在导入时也会运行</translation>
    </message>
    <message>
        <source>Maven wrapper and JVM options</source>
        <translation>Maven wrapper 和 JVM 选项</translation>
    </message>
    <message>
        <source>Ant runs it</source>
        <translation>Ant 会运行它</translation>
    </message>
    <message>
        <source>sbt runs it; IDEs do on import</source>
        <translation>sbt 会运行它；IDE 在导入时也会运行</translation>
    </message>
    <message>
        <source>npm runs its scripts, also on install</source>
        <translation>npm 会运行其中的脚本，安装时也会</translation>
    </message>
    <message>
        <source>decides which package code npm installs and runs</source>
        <translation>决定 npm 安装并运行哪些软件包代码</translation>
    </message>
    <message>
        <source>decides which package code yarn installs and runs</source>
        <translation>决定 yarn 安装并运行哪些软件包代码</translation>
    </message>
    <message>
        <source>decides which package code pnpm installs and runs</source>
        <translation>决定 pnpm 安装并运行哪些软件包代码</translation>
    </message>
    <message>
        <source>can set the shell and Node options npm runs scripts with</source>
        <translation>可以设置 npm 运行脚本时使用的 shell 和 Node 选项</translation>
    </message>
    <message>
        <source>can name the program yarn runs</source>
        <translation>可以指定 yarn 运行的程序</translation>
    </message>
    <message>
        <source>yarnPath names the program yarn runs</source>
        <translation>yarnPath 指定 yarn 运行的程序</translation>
    </message>
    <message>
        <source>Composer runs its scripts</source>
        <translation>Composer 会运行其中的脚本</translation>
    </message>
    <message>
        <source>pip runs it on install</source>
        <translation>pip 在安装时会运行它</translation>
    </message>
    <message>
        <source>names the build backend pip runs</source>
        <translation>指定 pip 运行的构建后端</translation>
    </message>
    <message>
        <source>decides which package code pip installs</source>
        <translation>决定 pip 安装哪些软件包代码</translation>
    </message>
    <message>
        <source>decides which package code pipenv installs</source>
        <translation>决定 pipenv 安装哪些软件包代码</translation>
    </message>
    <message>
        <source>decides which package code poetry installs</source>
        <translation>决定 poetry 安装哪些软件包代码</translation>
    </message>
    <message>
        <source>decides which package code uv installs</source>
        <translation>决定 uv 安装哪些软件包代码</translation>
    </message>
    <message>
        <source>pytest imports it on every run</source>
        <translation>pytest 每次运行都会导入它</translation>
    </message>
    <message>
        <source>tox runs its commands</source>
        <translation>tox 会运行其中的命令</translation>
    </message>
    <message>
        <source>nox runs it</source>
        <translation>nox 会运行它</translation>
    </message>
    <message>
        <source>Bundler evaluates it</source>
        <translation>Bundler 会执行它</translation>
    </message>
    <message>
        <source>decides which gem code Bundler installs</source>
        <translation>决定 Bundler 安装哪些 gem 代码</translation>
    </message>
    <message>
        <source>rake runs it</source>
        <translation>rake 会运行它</translation>
    </message>
    <message>
        <source>decides what cargo builds and runs</source>
        <translation>决定 cargo 构建并运行什么</translation>
    </message>
    <message>
        <source>decides which crate code cargo builds</source>
        <translation>决定 cargo 构建哪些 crate 代码</translation>
    </message>
    <message>
        <source>cargo runs build scripts on every build</source>
        <translation>cargo 每次构建都会运行构建脚本</translation>
    </message>
    <message>
        <source>cargo config can set the runner and compiler wrappers</source>
        <translation>cargo 配置可以设置运行器和编译器包装程序</translation>
    </message>
    <message>
        <source>builds run its commands</source>
        <translation>构建时会运行其中的命令</translation>
    </message>
    <message>
        <source>can mount host folders and run containers</source>
        <translation>可以挂载主机文件夹并运行容器</translation>
    </message>
    <message>
        <source>editors run its lifecycle commands when the folder opens</source>
        <translation>编辑器在打开文件夹时会运行其中的生命周期命令</translation>
    </message>
    <message>
        <source>just runs its recipes</source>
        <translation>just 会运行其中的配方</translation>
    </message>
    <message>
        <source>task runs its commands</source>
        <translation>task 会运行其中的命令</translation>
    </message>
    <message>
        <source>Nix evaluates it (nix develop, direnv)</source>
        <translation>Nix 会求值它（nix develop、direnv）</translation>
    </message>
    <message>
        <source>Nix evaluates it (nix-shell, direnv)</source>
        <translation>Nix 会求值它（nix-shell、direnv）</translation>
    </message>
    <message>
        <source>Nix evaluates it</source>
        <translation>Nix 会求值它</translation>
    </message>
    <message>
        <source>direnv runs it when a shell enters the folder</source>
        <translation>shell 进入该文件夹时 direnv 会运行它</translation>
    </message>
    <message>
        <source>tools load it into their environment (NODE_OPTIONS and the like run code)</source>
        <translation>工具会将其加载到环境中（NODE_OPTIONS 之类的变量会运行代码）</translation>
    </message>
    <message>
        <source>mise runs its hooks and tasks</source>
        <translation>mise 会运行其中的钩子和任务</translation>
    </message>
    <message>
        <source>pre-commit installs and runs its hooks</source>
        <translation>pre-commit 会安装并运行其中的钩子</translation>
    </message>
    <message>
        <source>husky installs these as git hooks</source>
        <translation>husky 会将它们安装为 git 钩子</translation>
    </message>
    <message>
        <source>lefthook installs these as git hooks</source>
        <translation>lefthook 会将它们安装为 git 钩子</translation>
    </message>
    <message>
        <source>editor tasks, launch configurations and settings that name programs</source>
        <translation>编辑器任务、启动配置以及指定程序的设置</translation>
    </message>
    <message>
        <source>editor tasks and settings that name programs</source>
        <translation>编辑器任务以及指定程序的设置</translation>
    </message>
    <message>
        <source>IDE run configurations and settings that name programs</source>
        <translation>IDE 运行配置以及指定程序的设置</translation>
    </message>
    <message>
        <source>editor tasks</source>
        <translation>编辑器任务</translation>
    </message>
    <message>
        <source>vim runs it when exrc is on</source>
        <translation>开启 exrc 时 vim 会运行它</translation>
    </message>
    <message>
        <source>Neovim runs it when exrc is on</source>
        <translation>开启 exrc 时 Neovim 会运行它</translation>
    </message>
    <message>
        <source>Emacs evaluates it</source>
        <translation>Emacs 会执行它</translation>
    </message>
    <message>
        <source>decides what the next review copy shows the agent</source>
        <translation>决定下一次审阅副本向代理展示哪些内容</translation>
    </message>
    <message>
        <source>Windows drops a name&apos;s trailing dot or space: %1 would land on another file there.</source>
        <translation>Windows 会去掉名称末尾的点或空格：%1 在那里会落到另一个文件上。</translation>
    </message>
    <message>
        <source>%1 looks like a Windows short name (GIT~1 is .git): it can name another file.</source>
        <translation>%1 看起来像 Windows 短文件名（GIT~1 即 .git）：它可能指向另一个文件。</translation>
    </message>
    <message>
        <source>%1 is a device name on Windows.</source>
        <translation>%1 在 Windows 上是设备名。</translation>
    </message>
</context>
<context>
    <name>zeus::CommandExecution</name>
    <message>
        <source>(the log is empty)</source>
        <translation>（日志为空）</translation>
    </message>
    <message>
        <source>The container exited right after it started (exit code %1), so the command did not run. The sandbox image %2 must be able to run `sleep infinity`; check the image setting (Settings, Sandbox image) or rebuild the image. The end of the container&apos;s log:
%3</source>
        <translation>容器启动后立即退出（退出码 %1），因此命令没有运行。沙箱镜像 %2 必须能够运行 `sleep infinity`；请检查镜像设置（设置，沙箱镜像）或重新构建镜像。容器日志的末尾：
%3</translation>
    </message>
    <message>
        <source>(unknown)</source>
        <translation>（未知）</translation>
    </message>
</context>
<context>
    <name>zeus::CommitsResult</name>
    <message>
        <source>The copy&apos;s commits were fetched.</source>
        <translation>已取回副本中的提交。</translation>
    </message>
    <message>
        <source>The agent&apos;s commits are in your repository under %1 (%2): your branches are untouched. Look with git log %1%3; merge with git merge --autostash %1%3 (it keeps your uncommitted changes, the files you applied included).</source>
        <translation>代理的提交已放入您仓库的 %1 下（%2）：您的分支未被改动。可用 git log %1%3 查看；用 git merge --autostash %1%3 合并（它会保留您未提交的改动，包括您已应用的文件）。</translation>
    </message>
    <message>
        <source>The agent made no new commits.</source>
        <translation>代理没有新的提交。</translation>
    </message>
    <message>
        <source>The container&apos;s image has no git: any commits stay in the copy.</source>
        <translation>容器镜像中没有 git：所有提交都留在副本中。</translation>
    </message>
    <message>
        <source>git is not installed on this computer: the commits stay in the copy.</source>
        <translation>本机未安装 git：提交留在副本中。</translation>
    </message>
    <message>
        <source>The commits stay in the copy: %1</source>
        <translation>提交留在副本中：%1</translation>
    </message>
</context>
<context>
    <name>zeus::ConnectionPanel</name>
    <message>
        <source>State:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>Backend:</source>
        <translation>后端：</translation>
    </message>
    <message>
        <source>Last error:</source>
        <translation>最近的错误：</translation>
    </message>
    <message>
        <source>Next attempt:</source>
        <translation>下次尝试：</translation>
    </message>
    <message>
        <source>%1 (in %2 s)</source>
        <translation>%1（%2 秒后）</translation>
    </message>
    <message>
        <source>not configured (Settings › Connection)</source>
        <translation>未配置（设置 › 连接）</translation>
    </message>
    <message>
        <source>Not available</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>&amp;Sign In…</source>
        <translation>登录(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation>断开(&amp;D)</translation>
    </message>
    <message>
        <source>%1 (from the command line, this run only)</source>
        <translation>%1（来自命令行，仅本次运行）</translation>
    </message>
</context>
<context>
    <name>zeus::CredentialStore</name>
    <message>
        <source>Not signed in: no token is stored for this backend.</source>
        <translation>未登录：没有为此后端保存令牌。</translation>
    </message>
    <message>
        <source>The keychain is locked or access to it was denied. Unlock it and try again.</source>
        <translation>钥匙串已锁定或访问被拒绝。请解锁后重试。</translation>
    </message>
    <message>
        <source>The keychain reported an error: %1</source>
        <translation>钥匙串报告了一个错误：%1</translation>
    </message>
    <message>
        <source>No keychain is available to store the sign-in token (%1). Zeus Desktop never stores it in plain text: start a keyring such as GNOME Keyring or KWallet, or set %2 for headless use.</source>
        <translation>没有可用于保存登录令牌的钥匙串（%1）。Zeus Desktop 绝不以明文保存令牌：请启动 GNOME Keyring 或 KWallet 等密钥环，或在无界面模式下设置 %2。</translation>
    </message>
    <message>
        <source>no keychain service</source>
        <translation>没有钥匙串服务</translation>
    </message>
    <message>
        <source>The keychain did not answer within %1 seconds. It may be locked and waiting for its password.</source>
        <translation>钥匙串在 %1 秒内没有应答。它可能已锁定，正在等待输入密码。</translation>
    </message>
</context>
<context>
    <name>zeus::DashboardWindow</name>
    <message>
        <source>Working directory</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Container runtime</source>
        <translation>容器运行时</translation>
    </message>
    <message>
        <source>Backend connection</source>
        <translation>后端连接</translation>
    </message>
    <message>
        <source>&amp;Overview</source>
        <translation>概览(&amp;O)</translation>
    </message>
    <message>
        <source>S&amp;essions</source>
        <translation>会话(&amp;E)</translation>
    </message>
    <message>
        <source>Co&amp;nsole</source>
        <translation>控制台(&amp;N)</translation>
    </message>
    <message>
        <source>&amp;Diagnostics</source>
        <translation>诊断(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Close Window</source>
        <translation>关闭窗口(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>No container runtime is usable, so no command can run.</source>
        <translation>没有可用的容器运行时，因此无法运行任何命令。</translation>
    </message>
    <message>
        <source>Show &amp;What to Do</source>
        <translation>查看解决办法(&amp;W)</translation>
    </message>
    <message>
        <source>Sign in to connect to the backend: paste your token in Settings.</source>
        <translation>登录后才能连接后端：请在“设置”中粘贴您的令牌。</translation>
    </message>
    <message>
        <source>Sign &amp;In…</source>
        <translation>登录(&amp;I)…</translation>
    </message>
    <message>
        <source>Choose and approve the folder that commands may work in.</source>
        <translation>请选择并批准命令可以使用的文件夹。</translation>
    </message>
    <message>
        <source>C&amp;hoose Folder…</source>
        <translation>选择文件夹(&amp;H)…</translation>
    </message>
    <message>
        <source>Net&amp;work</source>
        <translation>网络(&amp;W)</translation>
    </message>
    <message>
        <source>Chan&amp;ges</source>
        <translation>更改(&amp;G)</translation>
    </message>
    <message>
        <source>Open &amp;Diagnostics</source>
        <translation>打开诊断(&amp;D)</translation>
    </message>
</context>
<context>
    <name>zeus::DetectionResult</name>
    <message>
        <source>it was not probed</source>
        <translation>未进行检测</translation>
    </message>
    <message>
        <source>The preferred runtime %1 is not usable: %2</source>
        <translation>首选的运行时 %1 不可用：%2</translation>
    </message>
</context>
<context>
    <name>zeus::DiagnosticCheck</name>
    <message>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
</context>
<context>
    <name>zeus::DiagnosticSections</name>
    <message>
        <source>Container runtime</source>
        <translation>容器运行时</translation>
    </message>
    <message>
        <source>Engine reachable</source>
        <translation>引擎可访问</translation>
    </message>
    <message>
        <source>Sandbox image</source>
        <translation>沙箱镜像</translation>
    </message>
    <message>
        <source>Resource limits</source>
        <translation>资源限制</translation>
    </message>
    <message>
        <source>Approved folders</source>
        <translation>已批准的文件夹</translation>
    </message>
    <message>
        <source>Keychain</source>
        <translation>钥匙串</translation>
    </message>
    <message>
        <source>Backend connection</source>
        <translation>后端连接</translation>
    </message>
    <message>
        <source>Container runtime detection has not finished yet.</source>
        <translation>容器运行时检测尚未完成。</translation>
    </message>
    <message>
        <source>Wait a few seconds, or press Re-check Runtimes.</source>
        <translation>请稍等几秒，或点击“重新检查运行时”。</translation>
    </message>
    <message>
        <source>Not checked: runtime detection has not finished.</source>
        <translation>未检查：运行时检测尚未完成。</translation>
    </message>
    <message>
        <source>Not checked: no container runtime is installed.</source>
        <translation>未检查：未安装任何容器运行时。</translation>
    </message>
    <message>
        <source>Install a container runtime first (see the runtime check).</source>
        <translation>请先安装容器运行时（见运行时检查项）。</translation>
    </message>
    <message>
        <source>Using %1%2.</source>
        <translation>正在使用 %1%2。</translation>
    </message>
    <message>
        <source>%1 is installed%2.</source>
        <translation>%1 已安装%2。</translation>
    </message>
    <message>
        <source>server %1</source>
        <translation>服务器 %1</translation>
    </message>
    <message>
        <source>rootless</source>
        <translation>无根模式</translation>
    </message>
    <message>
        <source>rootful</source>
        <translation>root 模式</translation>
    </message>
    <message>
        <source>The %1 engine answers.</source>
        <translation>%1 引擎有响应。</translation>
    </message>
    <message>
        <source>The %1 engine answers: %2.</source>
        <translation>%1 引擎有响应：%2。</translation>
    </message>
    <message>
        <source>Sandbox</source>
        <translation>沙箱</translation>
    </message>
    <message>
        <source>Image: %1</source>
        <translation>镜像：%1</translation>
    </message>
    <message>
        <source>Not checked: no usable container runtime.</source>
        <translation>未检查：没有可用的容器运行时。</translation>
    </message>
    <message>
        <source>Fix the container runtime first (see the checks above).</source>
        <translation>请先修复容器运行时（见上方检查项）。</translation>
    </message>
    <message>
        <source>The image %1 has not been inspected yet.</source>
        <translation>尚未检查镜像 %1。</translation>
    </message>
    <message>
        <source>Press Refresh in a moment.</source>
        <translation>请稍后点击“刷新”。</translation>
    </message>
    <message>
        <source>%1 has no image %2.</source>
        <translation>%1 中没有镜像 %2。</translation>
    </message>
    <message>
        <source>Build it (once, a few minutes): zeus-desktop --build-image
or: %1</source>
        <translation>构建它（只需一次，约几分钟）：zeus-desktop --build-image
或：%1</translation>
    </message>
    <message>
        <source>Could not ask %1 about the image %2: %3</source>
        <translation>无法向 %1 查询镜像 %2：%3</translation>
    </message>
    <message>
        <source>Check that the engine answers (Re-check Runtimes), then Refresh.</source>
        <translation>请确认引擎有响应（重新检查运行时），然后刷新。</translation>
    </message>
    <message>
        <source>Id: %1</source>
        <translation>ID：%1</translation>
    </message>
    <message>
        <source>Created: %1</source>
        <translation>创建时间：%1</translation>
    </message>
    <message>
        <source>Comment: %1</source>
        <translation>注释：%1</translation>
    </message>
    <message>
        <source>%1 is the Zeus sandbox image.</source>
        <translation>%1 是 Zeus 沙箱镜像。</translation>
    </message>
    <message>
        <source>%1 is the Zeus sandbox image (version %2).</source>
        <translation>%1 是 Zeus 沙箱镜像（版本 %2）。</translation>
    </message>
    <message>
        <source>%1 is only the minimal offline test image (busybox and bash): no Python, Node.js, git or compilers.</source>
        <translation>%1 只是最小的离线测试镜像（busybox 和 bash）：没有 Python、Node.js、git 或编译器。</translation>
    </message>
    <message>
        <source>%1 is present (a custom image, not built from the app&apos;s Dockerfile).</source>
        <translation>%1 已存在（自定义镜像，并非由本应用的 Dockerfile 构建）。</translation>
    </message>
    <message>
        <source>memory %1 MiB, %2 processes, %3 CPUs</source>
        <translation>内存 %1 MiB，%2 个进程，%3 个 CPU</translation>
    </message>
    <message>
        <source>Each container is its own VM, sized by the limits (%1); this engine has no process-count limit, the VM bounds it.</source>
        <translation>每个容器都是独立的虚拟机，按限制设定大小（%1）；此引擎没有进程数限制，由虚拟机约束。</translation>
    </message>
    <message>
        <source>%1 will not enforce %2: a runaway command can use up this machine&apos;s memory or processes.</source>
        <translation>%1 不会强制执行 %2：失控的命令可能耗尽本机的内存或进程。</translation>
    </message>
    <message>
        <source>Rootless Podman needs cgroup v2 with the memory, pids and cpu controllers delegated to your user (systemd: Delegate=yes for user@.service), or run Podman rootful.</source>
        <translation>无根模式的 Podman 需要 cgroup v2，并将 memory、pids 和 cpu 控制器委派给你的用户（systemd：为 user@.service 设置 Delegate=yes），或以 root 模式运行 Podman。</translation>
    </message>
    <message>
        <source>Enable the memory, pids and cpu cgroup controllers (use cgroup v2, or boot with cgroup_enable=memory), then restart the engine.</source>
        <translation>启用 memory、pids 和 cpu cgroup 控制器（使用 cgroup v2，或以 cgroup_enable=memory 启动），然后重启引擎。</translation>
    </message>
    <message>
        <source>%1 does not say whether it enforces %2.</source>
        <translation>%1 未说明是否强制执行 %2。</translation>
    </message>
    <message>
        <source>Update the engine, or check its own info output for cgroup warnings.</source>
        <translation>请更新引擎，或在其 info 输出中查看 cgroup 警告。</translation>
    </message>
    <message>
        <source>%1 enforces the limits (%2).</source>
        <translation>%1 会强制执行这些限制（%2）。</translation>
    </message>
    <message>
        <source>Configured: %1</source>
        <translation>已配置：%1</translation>
    </message>
    <message>
        <source>changed since approval: it now resolves to %1</source>
        <translation>批准后已更改：现在解析为 %1</translation>
    </message>
    <message>
        <source>active</source>
        <translation>有效</translation>
    </message>
    <message>
        <source>inactive</source>
        <translation>无效</translation>
    </message>
    <message>
        <source>Approve the folder again in the dashboard, or revoke it.</source>
        <translation>请在控制面板中重新批准该文件夹，或撤销它。</translation>
    </message>
    <message>
        <source>No folder is approved: the agent cannot run any command.</source>
        <translation>没有已批准的文件夹：智能体无法运行任何命令。</translation>
    </message>
    <message>
        <source>Choose a working directory in the dashboard.</source>
        <translation>请在控制面板中选择工作目录。</translation>
    </message>
    <message>
        <source>No approved folder can be used: %1</source>
        <translation>没有可用的已批准文件夹：%1</translation>
    </message>
    <message>
        <source>%1 of %2 approved folders cannot be used: %3</source>
        <translation>%2 个已批准文件夹中有 %1 个无法使用：%3</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>No backend is set up, so no sign-in token is needed yet.</source>
        <translation>尚未设置后端，因此暂时不需要登录令牌。</translation>
    </message>
    <message>
        <source>The keychain has not answered yet.</source>
        <translation>钥匙串尚未响应。</translation>
    </message>
    <message>
        <source>If this stays, the keychain may be locked: unlock it, then Refresh.</source>
        <translation>如果一直如此，钥匙串可能已锁定：请解锁后刷新。</translation>
    </message>
    <message>
        <source>The sign-in token comes from the ZEUS_DESKTOP_TOKEN environment variable.</source>
        <translation>登录令牌来自环境变量 ZEUS_DESKTOP_TOKEN。</translation>
    </message>
    <message>
        <source>A sign-in token is stored in the keychain.</source>
        <translation>钥匙串中已保存登录令牌。</translation>
    </message>
    <message>
        <source>The keychain works; no backend is set up yet.</source>
        <translation>钥匙串工作正常；尚未设置后端。</translation>
    </message>
    <message>
        <source>The keychain works but holds no sign-in token for %1.</source>
        <translation>钥匙串工作正常，但没有 %1 的登录令牌。</translation>
    </message>
    <message>
        <source>Sign in: Settings, Sign-in token.</source>
        <translation>请登录：设置 → 登录令牌。</translation>
    </message>
    <message>
        <source>No keychain service is reachable: %1</source>
        <translation>无法访问钥匙串服务：%1</translation>
    </message>
    <message>
        <source>Start the desktop&apos;s keyring (GNOME Keyring, KWallet) in this session, or set ZEUS_DESKTOP_TOKEN for headless use. The app never stores the token in a file.</source>
        <translation>请在此会话中启动桌面的密钥环（GNOME Keyring、KWallet），或在无界面使用时设置 ZEUS_DESKTOP_TOKEN。本应用绝不会把令牌保存到文件中。</translation>
    </message>
    <message>
        <source>The keychain is locked or refused access: %1</source>
        <translation>钥匙串已锁定或拒绝访问：%1</translation>
    </message>
    <message>
        <source>Unlock the keychain (and allow Zeus Desktop when asked), then Refresh.</source>
        <translation>请解锁钥匙串（在询问时允许 Zeus Desktop），然后刷新。</translation>
    </message>
    <message>
        <source>The keychain failed: %1</source>
        <translation>钥匙串出错：%1</translation>
    </message>
    <message>
        <source>Restart the keyring service or sign out and in again; the message above names the error.</source>
        <translation>请重启密钥环服务，或注销后重新登录；上面的消息给出了错误原因。</translation>
    </message>
    <message>
        <source>No backend URL is set.</source>
        <translation>尚未设置后端地址。</translation>
    </message>
    <message>
        <source>Enter the backend URL in Settings.</source>
        <translation>请在设置中输入后端地址。</translation>
    </message>
    <message>
        <source>Connected to %1.</source>
        <translation>已连接到 %1。</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>正在连接到 %1…</translation>
    </message>
    <message>
        <source>Wait a moment; if it stays, check the network and the URL.</source>
        <translation>请稍候；如果一直如此，请检查网络和地址。</translation>
    </message>
    <message>
        <source>Not connected to %1, retrying%2.</source>
        <translation>未连接到 %1，正在重试%2。</translation>
    </message>
    <message>
        <source>Check the network, the URL in Settings and that the backend is up.</source>
        <translation>请检查网络、设置中的地址，以及后端是否在运行。</translation>
    </message>
    <message>
        <source>Signed out: no sign-in token for %1.</source>
        <translation>已登出：没有 %1 的登录令牌。</translation>
    </message>
    <message>
        <source>Disconnected from %1.</source>
        <translation>已与 %1 断开连接。</translation>
    </message>
    <message>
        <source>Connect from the tray menu.</source>
        <translation>请从托盘菜单连接。</translation>
    </message>
    <message>
        <source>The backend refused the sign-in token%1.</source>
        <translation>后端拒绝了登录令牌%1。</translation>
    </message>
    <message>
        <source>Get a new token from the backend and enter it in Settings.</source>
        <translation>请从后端获取新令牌并在设置中输入。</translation>
    </message>
    <message>
        <source>The backend settings cannot be used%1.</source>
        <translation>后端设置无法使用%1。</translation>
    </message>
    <message>
        <source>Correct the backend URL in Settings (wss://, or ws:// to this machine only).</source>
        <translation>请在设置中更正后端地址（wss://，或仅限本机的 ws://）。</translation>
    </message>
    <message>
        <source>URL: %1
State: %2
Last error: %3
History:
%4</source>
        <translation>地址：%1
状态：%2
最近的错误：%3
历史记录：
%4</translation>
    </message>
    <message>
        <source>Recent errors</source>
        <translation>最近的错误</translation>
    </message>
    <message>
        <source>%1 approved folder(s), all usable.</source>
        <translation>%1 个已批准的文件夹，全部可用。</translation>
    </message>
    <message>
        <source>Sandbox agent</source>
        <translation>沙箱代理</translation>
    </message>
    <message>
        <source>Reinstall Zeus Desktop, or build the project&apos;s agent target.</source>
        <translation>请重新安装 Zeus Desktop，或构建项目的代理目标。</translation>
    </message>
    <message>
        <source>Reinstall Zeus Desktop so the app and its agent match.</source>
        <translation>请重新安装 Zeus Desktop，使应用与其代理版本一致。</translation>
    </message>
    <message>
        <source>Not used (exec mode chosen); each command is a plain exec.</source>
        <translation>未使用（已选择 exec 模式）；每条命令都是一次普通 exec。</translation>
    </message>
    <message>
        <source>From the sandbox image (%1); a session without it runs plain exec and says so.</source>
        <translation>来自沙箱镜像（%1）；没有代理的会话使用普通 exec 并会说明。</translation>
    </message>
    <message>
        <source>Not found beside the app; sessions use the image&apos;s copy if it has one, else plain exec (slower: one engine exec per command).</source>
        <translation>在应用旁未找到；会话使用镜像中的副本（如有），否则使用普通 exec（较慢：每条命令一次引擎 exec）。</translation>
    </message>
    <message>
        <source>Found at %1; each session checks its version when it starts.</source>
        <translation>位于 %1；每个会话启动时检查其版本。</translation>
    </message>
    <message>
        <source>%1 answered &quot;%2&quot;, not version %3.</source>
        <translation>%1 回答“%2”，而不是版本 %3。</translation>
    </message>
    <message>
        <source>ok (version %1, %2)</source>
        <translation>正常（版本 %1，%2）</translation>
    </message>
    <message>
        <source>open: the container has the engine&apos;s whole network (the local network, cloud metadata, any host). Nothing is filtered.</source>
        <translation>open：容器拥有引擎的全部网络（局域网、云元数据、任意主机），不做任何过滤。</translation>
    </message>
    <message>
        <source>none: the container has no network at all.</source>
        <translation>none：容器完全没有网络。</translation>
    </message>
    <message>
        <source>allowlist: no network but the app&apos;s proxy; preset %1 (%2 hosts), %3 allow and %4 deny rules of your own.</source>
        <translation>allowlist：除应用的代理外没有网络；预设 %1（%2 个主机），您自己的允许规则 %3 条、拒绝规则 %4 条。</translation>
    </message>
    <message>
        <source>Commands run with plain exec: without the sandbox agent nothing gets out at all.</source>
        <translation>命令以普通 exec 方式运行：没有沙箱代理时，任何连接都无法出去。</translation>
    </message>
    <message>
        <source>Allow: %1</source>
        <translation>允许：%1</translation>
    </message>
    <message>
        <source>Deny: %1</source>
        <translation>拒绝：%1</translation>
    </message>
    <message>
        <source>Resolve: %1</source>
        <translation>解析：%1</translation>
    </message>
    <message>
        <source>Network</source>
        <translation>网络</translation>
    </message>
    <message>
        <source>Engine: %1</source>
        <translation>引擎：%1</translation>
    </message>
    <message>
        <source>Every folder of this run: %1 (--workspace-mode)</source>
        <translation>本次运行的所有文件夹：%1（--workspace-mode）</translation>
    </message>
    <message>
        <source>Default: %1 (each folder may set its own)</source>
        <translation>默认：%1（每个文件夹可单独设置）</translation>
    </message>
    <message>
        <source>Commands in %1 folder(s) will be refused, for the reasons above.</source>
        <translation>%1 个文件夹中的命令将被拒绝，原因见上文。</translation>
    </message>
    <message>
        <source>Workspace mode</source>
        <translation>工作区模式</translation>
    </message>
    <message>
        <source>Built from the distribution&apos;s package archive (%1), revision %2</source>
        <translation>由发行版的软件包仓库（%1）构建，修订版 %2</translation>
    </message>
    <message>
        <source>Built by: %1, revision %2</source>
        <translation>构建方式：%1，修订版 %2</translation>
    </message>
    <message>
        <source>Build the real image (from a registry, or else from the distribution&apos;s package archive): remove this one, then run zeus-desktop --build-image</source>
        <translation>构建真正的镜像（从镜像仓库，否则从发行版的软件包仓库）：先删除此镜像，然后运行 zeus-desktop --build-image</translation>
    </message>
    <message>
        <source>This computer&apos;s %1 trusted root certificates go into each container (%2).</source>
        <translation>本机的 %1 个受信任根证书会放入每个容器（%2）。</translation>
    </message>
    <message>
        <source>This computer&apos;s trusted certificates are not passed (--no-host-ca or the setting): on a network that inspects HTTPS, HTTPS from the sandbox fails.</source>
        <translation>未传入本机的受信任证书（--no-host-ca 或设置）：在检查 HTTPS 的网络中，沙箱内的 HTTPS 会失败。</translation>
    </message>
    <message>
        <source>Upstream proxy: %1 (from: %2; credentials: %3; NO_PROXY: %4)</source>
        <translation>上游代理：%1（来源：%2；凭据：%3；NO_PROXY：%4）</translation>
    </message>
    <message>
        <source>straight to the host</source>
        <translation>直接连接到主机</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>every folder: %1</source>
        <translation>所有文件夹：%1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Host services reachable in the sandbox: %1</source>
        <translation>沙箱中可访问的主机服务：%1</translation>
    </message>
    <message>
        <source>Host-bound secrets</source>
        <translation>绑定主机的机密</translation>
    </message>
    <message>
        <source>%1 goes only to %2</source>
        <translation>%1 只发往 %2</translation>
    </message>
    <message>
        <source>no host (its placeholder goes nowhere)</source>
        <translation>没有主机（其占位符不会被替换）</translation>
    </message>
    <message>
        <source>not read here</source>
        <translation>此处未读取</translation>
    </message>
    <message>
        <source>waiting for the keychain</source>
        <translation>正在等待钥匙串</translation>
    </message>
    <message>
        <source>SHA-256 %1</source>
        <translation>SHA-256 %1</translation>
    </message>
    <message>
        <source>not available: %1</source>
        <translation>不可用：%1</translation>
    </message>
    <message>
        <source>Stored: %1</source>
        <translation>已存储：%1</translation>
    </message>
    <message>
        <source>Into the command&apos;s environment when allowed (redacted from the output): %1</source>
        <translation>获准后进入命令的环境（从输出中遮蔽）：%1</translation>
    </message>
    <message>
        <source>Interception CA: %1</source>
        <translation>拦截 CA：%1</translation>
    </message>
    <message>
        <source>No secret is bound to hosts: a secret a command is allowed goes into its environment and is redacted from its output.</source>
        <translation>没有机密绑定到主机：命令获准使用的机密会进入其环境，并从其输出中遮蔽。</translation>
    </message>
    <message numerus="yes">
        <source>%n secret(s) bound to hosts, but the interception CA is not available: %1</source>
        <translation>
            <numerusform>%n 个机密绑定到主机，但拦截 CA 不可用：%1</numerusform>
        </translation>
    </message>
    <message>
        <source>Unlock the keychain and restart Zeus Desktop. Until then commands get the placeholders, which nothing replaces: requests that need these secrets fail, and no value is sent.</source>
        <translation>请解锁钥匙串并重新启动 Zeus Desktop。在此之前，命令只得到不会被替换的占位符：需要这些机密的请求会失败，不会发送任何值。</translation>
    </message>
    <message numerus="yes">
        <source>%n secret(s) bound to hosts: their values never enter the sandbox (interception CA %1).</source>
        <translation>
            <numerusform>%n 个机密绑定到主机：其值永远不会进入沙箱（拦截 CA %1）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Secrets</source>
        <translation>机密</translation>
    </message>
</context>
<context>
    <name>zeus::DiagnosticsPanel</name>
    <message>
        <source>Diagnostics report</source>
        <translation>诊断报告</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>Re-&amp;check Runtimes</source>
        <translation>重新检测运行时(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Copy the report as text; tokens are redacted</source>
        <translation>以文本形式复制报告；令牌已被隐去</translation>
    </message>
    <message>
        <source>&amp;Save Report…</source>
        <translation>保存报告(&amp;S)…</translation>
    </message>
    <message>
        <source>Tokens are never included.</source>
        <translation>报告中绝不包含令牌。</translation>
    </message>
    <message>
        <source>Save Diagnostics Report</source>
        <translation>保存诊断报告</translation>
    </message>
    <message>
        <source>Readable text (*.txt)</source>
        <translation>可读文本 (*.txt)</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Could not save the report to %1: %2</source>
        <translation>无法将报告保存到 %1：%2</translation>
    </message>
    <message>
        <source>Checks</source>
        <translation>检查项</translation>
    </message>
    <message>
        <source>Full report</source>
        <translation>完整报告</translation>
    </message>
    <message>
        <source>%1 failed, %2 warning(s), %3 ok</source>
        <translation>%1 项失败，%2 项警告，%3 项正常</translation>
    </message>
    <message>
        <source>all %1 passed</source>
        <translation>全部 %1 项通过</translation>
    </message>
    <message>
        <source>Build &amp;Image…</source>
        <translation>构建镜像(&amp;I)…</translation>
    </message>
    <message>
        <source>Build the sandbox image with the container runtime in use</source>
        <translation>使用当前的容器运行时构建沙箱镜像</translation>
    </message>
</context>
<context>
    <name>zeus::DiagnosticsReport</name>
    <message>
        <source>OS: %1, %2, %3</source>
        <translation>操作系统：%1，%2，%3</translation>
    </message>
    <message>
        <source>Report generated: %1</source>
        <translation>报告生成时间：%1</translation>
    </message>
    <message>
        <source>== Container runtime ==</source>
        <translation>== 容器运行时 ==</translation>
    </message>
    <message>
        <source>Using: %1 (server %2)</source>
        <translation>正在使用：%1（服务端 %2）</translation>
    </message>
    <message>
        <source>Using: none</source>
        <translation>正在使用：无</translation>
    </message>
    <message>
        <source>Reason: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>Preference: %1; detection took %2 ms</source>
        <translation>首选项：%1；检测耗时 %2 毫秒</translation>
    </message>
    <message>
        <source>What to do:</source>
        <translation>解决办法：</translation>
    </message>
    <message>
        <source>  binary: %1</source>
        <translation>  可执行文件：%1</translation>
    </message>
    <message>
        <source>  client version: %1, server version: %2</source>
        <translation>  客户端版本：%1，服务端版本：%2</translation>
    </message>
    <message>
        <source>  engine OS: %1, arch: %2, rootless: %3</source>
        <translation>  引擎操作系统：%1，架构：%2，无 root 模式：%3</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>  runc: %1</source>
        <translation>  runc：%1</translation>
    </message>
    <message>
        <source>  reason: %1</source>
        <translation>  原因：%1</translation>
    </message>
    <message>
        <source>  guidance:</source>
        <translation>  建议：</translation>
    </message>
    <message>
        <source>not started: %1</source>
        <translation>未能启动：%1</translation>
    </message>
    <message>
        <source>timed out</source>
        <translation>已超时</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>已崩溃</translation>
    </message>
    <message>
        <source>exit %1</source>
        <translation>退出码 %1</translation>
    </message>
    <message>
        <source>    stdout:</source>
        <translation>    标准输出：</translation>
    </message>
    <message>
        <source>    stderr:</source>
        <translation>    标准错误：</translation>
    </message>
    <message>
        <source>Checks: %1 ok, %2 warning(s), %3 failed</source>
        <translation>检查项：%1 项正常，%2 项警告，%3 项失败</translation>
    </message>
    <message>
        <source>Engine: %1</source>
        <translation>引擎：%1</translation>
    </message>
    <message>
        <source>  location: %1</source>
        <translation>  位置：%1</translation>
    </message>
</context>
<context>
    <name>zeus::EngineLocation</name>
    <message>
        <source>local</source>
        <translation>本地</translation>
    </message>
    <message>
        <source>remote</source>
        <translation>远程</translation>
    </message>
    <message>
        <source>remote (%1)</source>
        <translation>远程（%1）</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>zeus::GuiMcpHost</name>
    <message>
        <source>MCP over HTTP is off: the keychain could not keep its token (%1)</source>
        <translation>MCP over HTTP 已关闭：钥匙串无法保存其令牌（%1）</translation>
    </message>
    <message>
        <source>MCP over HTTP is off: the app cannot listen on 127.0.0.1 for the sandbox&apos;s own connection</source>
        <translation>MCP over HTTP 已关闭：应用无法在 127.0.0.1 上监听沙箱自身的连接</translation>
    </message>
    <message>
        <source>MCP over HTTP is off: 127.0.0.1:%1 is in use</source>
        <translation>MCP over HTTP 已关闭：127.0.0.1:%1 已被占用</translation>
    </message>
</context>
<context>
    <name>zeus::GuiService</name>
    <message>
        <source>Sign-in rejected</source>
        <translation>登录被拒绝</translation>
    </message>
    <message>
        <source>The backend refused the sign-in token. Enter a new one in Settings.</source>
        <translation>后端拒绝了登录令牌。请在“设置”中输入新的令牌。</translation>
    </message>
    <message>
        <source>No container runtime</source>
        <translation>没有容器运行时</translation>
    </message>
    <message>
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Refused working directory %1: %2</source>
        <translation>已拒绝工作目录 %1：%2</translation>
    </message>
    <message>
        <source>Command approval</source>
        <translation>命令审批</translation>
    </message>
    <message>
        <source>Not ready: no sandbox agent</source>
        <translation>未就绪：没有沙箱代理</translation>
    </message>
    <message>
        <source>MCP over HTTP is off</source>
        <translation>MCP over HTTP 已关闭</translation>
    </message>
</context>
<context>
    <name>zeus::ImageBuildDialog</name>
    <message>
        <source>Build the Sandbox Image</source>
        <translation>构建沙箱镜像</translation>
    </message>
    <message>
        <source>Building %1 with %2.</source>
        <translation>正在使用 %2 构建 %1。</translation>
    </message>
    <message>
        <source>Where no container registry answers, the image is made from this computer&apos;s distribution archive instead; the first build can take ten minutes or more. An image that is already current is kept.</source>
        <translation>如果没有可用的容器镜像仓库，将改用本机发行版的软件包归档来制作镜像；首次构建可能需要十分钟或更长时间。已是最新的镜像会被保留。</translation>
    </message>
    <message>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Build log</source>
        <translation>构建日志</translation>
    </message>
    <message>
        <source>&amp;Cancel Build</source>
        <translation>取消构建(&amp;C)</translation>
    </message>
    <message>
        <source>Building…</source>
        <translation>正在构建…</translation>
    </message>
    <message>
        <source>Stopping the build…</source>
        <translation>正在停止构建…</translation>
    </message>
    <message>
        <source>The build failed: %1</source>
        <translation>构建失败：%1</translation>
    </message>
    <message>
        <source>The image is current: nothing needed building.</source>
        <translation>镜像已是最新：无需构建。</translation>
    </message>
    <message>
        <source>The image is built, from this computer&apos;s distribution archive (no registry answered).</source>
        <translation>镜像已构建，来自本机发行版的软件包归档（没有可用的镜像仓库）。</translation>
    </message>
    <message>
        <source>The image is built.</source>
        <translation>镜像已构建。</translation>
    </message>
</context>
<context>
    <name>zeus::ImageBuilder</name>
    <message>
        <source>No container engine was chosen to build the image.</source>
        <translation>未选择用于构建镜像的容器引擎。</translation>
    </message>
    <message>
        <source>The image tag &quot;%1&quot; is not valid.</source>
        <translation>镜像标签“%1”无效。</translation>
    </message>
    <message>
        <source>The Dockerfile &quot;%1&quot; does not exist.</source>
        <translation>Dockerfile“%1”不存在。</translation>
    </message>
    <message>
        <source>The build context &quot;%1&quot; is not a directory.</source>
        <translation>构建上下文“%1”不是目录。</translation>
    </message>
    <message>
        <source>The build argument &quot;%1&quot; is not KEY=VALUE.</source>
        <translation>构建参数“%1”不是 KEY=VALUE 格式。</translation>
    </message>
    <message>
        <source>An image build is already running.</source>
        <translation>已有镜像构建正在进行。</translation>
    </message>
    <message>
        <source>The image build timed out after %1 s and was stopped.</source>
        <translation>镜像构建在 %1 秒后超时，已被停止。</translation>
    </message>
    <message>
        <source>The image build was cancelled.</source>
        <translation>镜像构建已取消。</translation>
    </message>
    <message>
        <source>%1 build failed with exit code %2.</source>
        <translation>%1 构建失败，退出码为 %2。</translation>
    </message>
    <message>
        <source>Could not start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
    <message>
        <source>%1 cannot build the image without a registry (it has no import).</source>
        <translation>%1 无法在没有镜像仓库的情况下构建镜像（它没有 import）。</translation>
    </message>
    <message>
        <source>Building the image from the distribution&apos;s package archive needs mmdebstrap: install it (apt install mmdebstrap) and build again.</source>
        <translation>从发行版的软件包仓库构建镜像需要 mmdebstrap：请安装它（apt install mmdebstrap）后重新构建。</translation>
    </message>
    <message>
        <source>Could not make a temporary folder for the root file system.</source>
        <translation>无法为根文件系统创建临时文件夹。</translation>
    </message>
    <message>
        <source>Building %1 from the %2 %3 package archive (revision %4)</source>
        <translation>正在从 %2 %3 软件包仓库构建 %1（修订版 %4）</translation>
    </message>
    <message>
        <source>%1 is already built from this recipe (revision %2, %3): nothing to do.</source>
        <translation>%1 已按此配方构建（修订版 %2，%3）：无需操作。</translation>
    </message>
    <message>
        <source>%1 stopped unexpectedly.</source>
        <translation>%1 意外停止。</translation>
    </message>
    <message>
        <source>The Dockerfile&apos;s base could not be built (is a registry reachable?): building from the distribution&apos;s package archive instead.</source>
        <translation>无法构建 Dockerfile 的基础镜像（镜像仓库是否可达？）：改为从发行版的软件包仓库构建。</translation>
    </message>
    <message>
        <source>The distribution&apos;s package archive could not be used (mmdebstrap exit code %1).</source>
        <translation>无法使用发行版的软件包仓库（mmdebstrap 退出码 %1）。</translation>
    </message>
</context>
<context>
    <name>zeus::InstallGuidance</name>
    <message>
        <source>Apple Containerization runs only on macOS 26 or later on Apple silicon. On this system, install Docker instead.</source>
        <translation>Apple Containerization 仅能在搭载 Apple 芯片的 macOS 26 或更高版本上运行。在此系统上请改为安装 Docker。</translation>
    </message>
    <message>
        <source>Install Docker Desktop (with Homebrew, or the installer from docker.com), then open it once.</source>
        <translation>安装 Docker Desktop（使用 Homebrew，或从 docker.com 下载安装程序），然后打开一次。</translation>
    </message>
    <message>
        <source>Start Docker Desktop and wait until it says it is running.</source>
        <translation>启动 Docker Desktop，并等待其显示正在运行。</translation>
    </message>
    <message>
        <source>Docker Desktop&apos;s socket is not accessible to you. Use Docker Desktop&apos;s own context, or restart Docker Desktop.</source>
        <translation>您无法访问 Docker Desktop 的套接字。请使用 Docker Desktop 自己的上下文，或重新启动 Docker Desktop。</translation>
    </message>
    <message>
        <source>Update Docker Desktop to the latest release.</source>
        <translation>将 Docker Desktop 更新到最新版本。</translation>
    </message>
    <message>
        <source>Install Docker Desktop (WSL 2 backend), then start it once from the Start menu.</source>
        <translation>安装 Docker Desktop（WSL 2 后端），然后从“开始”菜单启动一次。</translation>
    </message>
    <message>
        <source>Your account may not use Docker Desktop. Add it to the docker-users group in an administrator terminal, then sign out and back in.</source>
        <translation>您的账户无权使用 Docker Desktop。请在管理员终端中将其加入 docker-users 组，然后注销并重新登录。</translation>
    </message>
    <message>
        <source>Install the Docker engine from the distribution and start it.</source>
        <translation>从发行版安装 Docker 引擎并启动它。</translation>
    </message>
    <message>
        <source>Start the Docker daemon (and enable it at boot).</source>
        <translation>启动 Docker 守护进程（并设置为开机启动）。</translation>
    </message>
    <message>
        <source>You are not allowed to use the Docker socket. Add yourself to the docker group, then log out and back in.</source>
        <translation>您无权使用 Docker 套接字。请将自己加入 docker 组，然后注销并重新登录。</translation>
    </message>
    <message>
        <source>Update the Docker engine and runc to current packages.</source>
        <translation>将 Docker 引擎和 runc 更新到当前版本的软件包。</translation>
    </message>
    <message>
        <source>Install the Docker engine (moby-engine) and start it.</source>
        <translation>安装 Docker 引擎（moby-engine）并启动它。</translation>
    </message>
    <message>
        <source>Install Docker and start its daemon.</source>
        <translation>安装 Docker 并启动其守护进程。</translation>
    </message>
    <message>
        <source>Update Docker and runc with a full system upgrade.</source>
        <translation>通过完整的系统升级来更新 Docker 和 runc。</translation>
    </message>
    <message>
        <source>Install Podman, then create and start its Linux machine.</source>
        <translation>安装 Podman，然后创建并启动其 Linux 虚拟机。</translation>
    </message>
    <message>
        <source>Start the Podman machine.</source>
        <translation>启动 Podman 虚拟机。</translation>
    </message>
    <message>
        <source>Podman&apos;s connection is not accessible to you. Check the default connection and restart the machine.</source>
        <translation>您无法访问 Podman 的连接。请检查默认连接并重新启动虚拟机。</translation>
    </message>
    <message>
        <source>Update Podman and its machine image.</source>
        <translation>更新 Podman 及其虚拟机镜像。</translation>
    </message>
    <message>
        <source>Install Podman, then create and start its WSL machine.</source>
        <translation>安装 Podman，然后创建并启动其 WSL 虚拟机。</translation>
    </message>
    <message>
        <source>Install Podman from the distribution.</source>
        <translation>从发行版安装 Podman。</translation>
    </message>
    <message>
        <source>Podman is set up to use a service that does not answer. Start your Podman socket.</source>
        <translation>Podman 被配置为使用一个没有应答的服务。请启动您的 Podman 套接字。</translation>
    </message>
    <message>
        <source>Rootless Podman needs subordinate user and group IDs for you. Add them, then migrate.</source>
        <translation>无 root 模式的 Podman 需要为您配置从属用户 ID 和组 ID。请添加后再执行迁移。</translation>
    </message>
    <message>
        <source>Update Podman and runc to current packages.</source>
        <translation>将 Podman 和 runc 更新到当前版本的软件包。</translation>
    </message>
    <message>
        <source>Install Podman.</source>
        <translation>安装 Podman。</translation>
    </message>
    <message>
        <source>Update Podman and its OCI runtimes.</source>
        <translation>更新 Podman 及其 OCI 运行时。</translation>
    </message>
    <message>
        <source>Update Podman and runc with a full system upgrade.</source>
        <translation>通过完整的系统升级来更新 Podman 和 runc。</translation>
    </message>
    <message>
        <source>Apple Containerization needs macOS 26 or later on Apple silicon. Download the signed installer package from the apple/container releases page, open it, then start the service.</source>
        <translation>Apple Containerization 需要搭载 Apple 芯片的 macOS 26 或更高版本。请从 apple/container 的发布页面下载已签名的安装包，打开安装，然后启动服务。</translation>
    </message>
    <message>
        <source>Start the container system service.</source>
        <translation>启动 container 系统服务。</translation>
    </message>
    <message>
        <source>The container system service is not accessible to you. Restart it as yourself.</source>
        <translation>您无法访问 container 系统服务。请以您自己的身份重新启动它。</translation>
    </message>
    <message>
        <source>Stop the service and install the latest release package from the apple/container releases page.</source>
        <translation>停止服务，然后从 apple/container 的发布页面安装最新的发布包。</translation>
    </message>
</context>
<context>
    <name>zeus::InterceptCa</name>
    <message>
        <source>The interception CA is not loaded.</source>
        <translation>拦截 CA 尚未加载。</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a host a certificate can name.</source>
        <translation>“%1”不是证书可以命名的主机。</translation>
    </message>
    <message>
        <source>Could not make a certificate for %1.</source>
        <translation>无法为 %1 生成证书。</translation>
    </message>
    <message>
        <source>Could not write the certificate for %1.</source>
        <translation>无法写入 %1 的证书。</translation>
    </message>
    <message>
        <source>The TLS library could not read the certificate made for %1.</source>
        <translation>TLS 库无法读取为 %1 生成的证书。</translation>
    </message>
    <message>
        <source>it holds no key and certificate</source>
        <translation>其中没有密钥和证书</translation>
    </message>
    <message>
        <source>its key does not belong to its certificate</source>
        <translation>其密钥与证书不匹配</translation>
    </message>
    <message>
        <source>its certificate is not a CA</source>
        <translation>其证书不是 CA</translation>
    </message>
    <message>
        <source>its certificate has expired</source>
        <translation>其证书已过期</translation>
    </message>
    <message>
        <source>its certificate cannot be written</source>
        <translation>其证书无法写出</translation>
    </message>
    <message>
        <source>The interception CA stored in the keychain cannot be used (%1). Remove the keychain entry &quot;%2&quot; of %3 and a new one is made.</source>
        <translation>钥匙串中保存的拦截 CA 无法使用（%1）。删除 %3 的钥匙串条目“%2”后会生成新的 CA。</translation>
    </message>
    <message>
        <source>Could not make the interception CA: %1.</source>
        <translation>无法生成拦截 CA：%1。</translation>
    </message>
    <message>
        <source>The keychain has no interception CA.</source>
        <translation>钥匙串中没有拦截 CA。</translation>
    </message>
    <message>
        <source>The keychain is locked or access to it was denied, so the interception CA for host-bound secrets cannot be used. Unlock it and try again.</source>
        <translation>钥匙串已锁定或访问被拒绝，因此无法使用主机绑定机密的拦截 CA。请解锁后重试。</translation>
    </message>
    <message>
        <source>The keychain did not answer within %1 seconds. It may be locked and waiting for its password.</source>
        <translation>钥匙串在 %1 秒内没有响应。它可能已锁定，正在等待输入密码。</translation>
    </message>
    <message>
        <source>The keychain reported an error (%1), so the interception CA for host-bound secrets cannot be used. Zeus Desktop never keeps its key in plain text.</source>
        <translation>钥匙串报告了错误（%1），因此无法使用主机绑定机密的拦截 CA。Zeus Desktop 绝不以明文保存其密钥。</translation>
    </message>
    <message>
        <source>No keychain is available for the interception CA of host-bound secrets (%1). Zeus Desktop never keeps its key in plain text: start a keyring such as GNOME Keyring or KWallet.</source>
        <translation>没有可用于主机绑定机密拦截 CA 的钥匙串（%1）。Zeus Desktop 绝不以明文保存其密钥：请启动 GNOME Keyring 或 KWallet 等密钥环。</translation>
    </message>
    <message>
        <source>no keychain service</source>
        <translation>没有钥匙串服务</translation>
    </message>
</context>
<context>
    <name>zeus::KeychainTokenStore</name>
    <message>
        <source>Enter the backend URL first: the token is stored for that backend.</source>
        <translation>请先输入后端地址：令牌是针对该后端保存的。</translation>
    </message>
    <message>
        <source>The token comes from the ZEUS_DESKTOP_TOKEN environment variable.</source>
        <translation>令牌来自环境变量 ZEUS_DESKTOP_TOKEN。</translation>
    </message>
</context>
<context>
    <name>zeus::LocalConsole</name>
    <message>
        <source>Command to run in the sandbox</source>
        <translation>要在沙箱中运行的命令</translation>
    </message>
    <message>
        <source>A command, for example: ls -la &amp;&amp; id</source>
        <translation>输入命令，例如：ls -la &amp;&amp; id</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>运行(&amp;R)</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>Checking for a container runtime…</source>
        <translation>正在检测容器运行时…</translation>
    </message>
    <message>
        <source>Commands run in a container that sees only %1 (mounted at /workspace). No backend is involved.</source>
        <translation>命令在只能看到 %1（挂载于 /workspace）的容器中运行，不涉及后端。</translation>
    </message>
</context>
<context>
    <name>zeus::McpApprovals</name>
    <message>
        <source>Run this command in the Zeus Desktop sandbox?</source>
        <translation>在 Zeus Desktop 沙箱中运行此命令？</translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <source>Asked because: %1</source>
        <translation>询问原因：%1</translation>
    </message>
    <message>
        <source>Run once</source>
        <translation>运行一次</translation>
    </message>
    <message>
        <source>Always allow &quot;%1&quot; in this folder</source>
        <translation>在此文件夹中始终允许“%1”</translation>
    </message>
    <message>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决定</translation>
    </message>
</context>
<context>
    <name>zeus::McpPage</name>
    <message>
        <source>Agents that run on this computer (Claude Code, Codex CLI, Cursor, VS Code, …) can run their commands in this sandbox through the Model Context Protocol, with the same folders, network rules, secrets and approvals as the backend.</source>
        <translation>在本机运行的智能体（Claude Code、Codex CLI、Cursor、VS Code 等）可以通过模型上下文协议（MCP）在此沙箱中运行命令，使用与后端相同的文件夹、网络规则、机密和审批。</translation>
    </message>
    <message>
        <source>In a client&apos;s configuration (stdio)</source>
        <translation>在客户端配置中（stdio）</translation>
    </message>
    <message>
        <source>The client starts this app for each conversation. While the tray app runs, its sessions show here and its questions are asked here; the folder must be approved on the Folders page.</source>
        <translation>客户端会为每次对话启动本应用。托盘应用运行时，其会话显示在这里，审批问题也在这里询问；文件夹必须在“文件夹”页中批准。</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Over HTTP</source>
        <translation>通过 HTTP</translation>
    </message>
    <message>
        <source>Serve MCP over HTTP on 127.0.0.1, port</source>
        <translation>在 127.0.0.1 上通过 HTTP 提供 MCP，端口</translation>
    </message>
    <message>
        <source>Only programs on this computer can connect, and every request needs the token below. Other users of this computer can reach the port, but not without the token.</source>
        <translation>只有本机上的程序可以连接，且每个请求都需要下面的令牌。本机的其他用户可以访问该端口，但没有令牌无法使用。</translation>
    </message>
    <message>
        <source>Make a &amp;new token…</source>
        <translation>生成新令牌(&amp;N)…</translation>
    </message>
    <message>
        <source>The token is kept in the system keychain and shown only when it is made.</source>
        <translation>令牌保存在系统钥匙串中，只在生成时显示。</translation>
    </message>
    <message>
        <source>Copy token</source>
        <translation>复制令牌</translation>
    </message>
    <message>
        <source>Making a new token…</source>
        <translation>正在生成新令牌…</translation>
    </message>
    <message>
        <source>No new token: %1. The old one, if any, still works.</source>
        <translation>未生成新令牌：%1。原有令牌（如有）仍然有效。</translation>
    </message>
    <message>
        <source>A new token, kept in the keychain and shown only now: copy it into your client. The old token no longer works.</source>
        <translation>新令牌已保存在钥匙串中，仅此时显示：请将其复制到客户端。旧令牌已失效。</translation>
    </message>
</context>
<context>
    <name>zeus::NetworkPage</name>
    <message>
        <source>As the profile says (Standard: allowlist, Hardened: none)</source>
        <translation>按加固配置决定（标准：允许列表，加固：无网络）</translation>
    </message>
    <message>
        <source>Allowlist: only the hosts below, through the app&apos;s proxy</source>
        <translation>允许列表：仅限下列主机，经由应用的代理</translation>
    </message>
    <message>
        <source>None: no network at all</source>
        <translation>无：完全没有网络</translation>
    </message>
    <message>
        <source>Open: the engine&apos;s whole network, unfiltered</source>
        <translation>开放：引擎的全部网络，不做过滤</translation>
    </message>
    <message>
        <source>&amp;Network:</source>
        <translation>网络(&amp;N)：</translation>
    </message>
    <message>
        <source>Developer (package registries, GitHub)</source>
        <translation>开发者（软件包仓库、GitHub）</translation>
    </message>
    <message>
        <source>Locked (only your own rules)</source>
        <translation>锁定（仅限您自己的规则）</translation>
    </message>
    <message>
        <source>&amp;Preset:</source>
        <translation>预设(&amp;P)：</translation>
    </message>
    <message>
        <source>example.com
*.example.com
host.example:8443</source>
        <translation>example.com
*.example.com
host.example:8443</translation>
    </message>
    <message>
        <source>&amp;Allow:</source>
        <translation>允许(&amp;A)：</translation>
    </message>
    <message>
        <source>Deny wins over any allow rule</source>
        <translation>拒绝规则优先于任何允许规则</translation>
    </message>
    <message>
        <source>&amp;Deny:</source>
        <translation>拒绝(&amp;D)：</translation>
    </message>
    <message>
        <source>HOST:PORT:ADDRESS (like curl --resolve)</source>
        <translation>主机:端口:地址（与 curl --resolve 相同）</translation>
    </message>
    <message>
        <source>&amp;Resolve:</source>
        <translation>解析(&amp;R)：</translation>
    </message>
    <message>
        <source>host or host:port</source>
        <translation>主机或 主机:端口</translation>
    </message>
    <message>
        <source>C&amp;heck a host:</source>
        <translation>检查主机(&amp;H)：</translation>
    </message>
    <message>
        <source>A host name that resolves to a private, loopback or link-local address is refused unless an address rule or a resolve entry names that address. Rule changes apply to running sessions at once.</source>
        <translation>解析到私有、回环或链路本地地址的主机名会被拒绝，除非有地址规则或解析条目指明该地址。规则的更改会立即应用到正在运行的会话。</translation>
    </message>
    <message>
        <source>Nothing is allowed but your own rules.</source>
        <translation>除您自己的规则外，不允许任何主机。</translation>
    </message>
    <message>
        <source>Allows: %1</source>
        <translation>允许：%1</translation>
    </message>
    <message>
        <source>Type a host to see which rule decides it.</source>
        <translation>输入一个主机，查看由哪条规则决定。</translation>
    </message>
    <message>
        <source>http://proxy.example:3128 (empty: HTTPS_PROXY, then the system&apos;s proxy)</source>
        <translation>http://proxy.example:3128（留空：使用 HTTPS_PROXY，然后是系统代理）</translation>
    </message>
    <message>
        <source>&amp;Upstream proxy:</source>
        <translation>上游代理(&amp;U)：</translation>
    </message>
    <message>
        <source>Upstream proxy: %1</source>
        <translation>上游代理：%1</translation>
    </message>
    <message>
        <source>✔ %1:%2 is allowed (%3).</source>
        <translation>✔ %1:%2 被允许（%3）。</translation>
    </message>
    <message>
        <source>✘ %1:%2 is denied (%3).</source>
        <translation>✘ %1:%2 被拒绝（%3）。</translation>
    </message>
    <message>
        <source>Trust this computer&apos;s root certificates in the sandbox (needed where the network inspects HTTPS)</source>
        <translation>在沙箱中信任本机的根证书（网络检查 HTTPS 时需要）</translation>
    </message>
    <message>
        <source>Certificates:</source>
        <translation>证书：</translation>
    </message>
    <message>
        <source>Allowed connections leave this computer through this HTTP proxy. Its user name and password go in the fields below, not in the URL.</source>
        <translation>被允许的连接经由此 HTTP 代理离开这台计算机。其用户名和密码请填在下面的字段中，不要写在 URL 里。</translation>
    </message>
    <message>
        <source>Only if the proxy asks for one</source>
        <translation>仅当代理要求时填写</translation>
    </message>
    <message>
        <source>Proxy user &amp;name:</source>
        <translation>代理用户名(&amp;N)：</translation>
    </message>
    <message>
        <source>Proxy pass&amp;word:</source>
        <translation>代理密码(&amp;W)：</translation>
    </message>
    <message>
        <source>The proxy password is stored in the keychain.</source>
        <translation>代理密码已保存到钥匙串。</translation>
    </message>
    <message>
        <source>The proxy password was not stored: %1</source>
        <translation>代理密码未保存：%1</translation>
    </message>
    <message>
        <source>Kept in the system keychain</source>
        <translation>保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>Kept in the system keychain; type to replace it</source>
        <translation>已保存在系统钥匙串中；输入新密码即可替换</translation>
    </message>
    <message>
        <source>Upstream proxy: the user name and password go in the fields below, not in the URL (the URL is kept in the settings file in the clear)</source>
        <translation>上游代理：用户名和密码请填在下面的字段中，不要写在 URL 里（URL 以明文保存在设置文件中）</translation>
    </message>
    <message>
        <source>Waiting for the keychain…</source>
        <translation>正在等待钥匙串…</translation>
    </message>
</context>
<context>
    <name>zeus::NetworkPanel</name>
    <message>
        <source>No connection attempts yet. With the allowlist, every host a command asks for shows up here with the rule that decided it.</source>
        <translation>尚无连接尝试。使用允许列表时，命令请求的每个主机都会显示在这里，并附上做出决定的规则。</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>Decision</source>
        <translation>决定</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>Last seen</source>
        <translation>最近一次</translation>
    </message>
    <message>
        <source>Network policy log</source>
        <translation>网络策略日志</translation>
    </message>
    <message>
        <source>Allow &amp;Once</source>
        <translation>允许一次(&amp;O)</translation>
    </message>
    <message>
        <source>Allow for This &amp;Session</source>
        <translation>在此会话中允许(&amp;S)</translation>
    </message>
    <message>
        <source>Always Allow for This &amp;Folder</source>
        <translation>始终对此文件夹允许(&amp;F)</translation>
    </message>
    <message>
        <source>allowed</source>
        <translation>已允许</translation>
    </message>
    <message>
        <source>denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>certificate not trusted</source>
        <translation>证书不受信任</translation>
    </message>
    <message>
        <source>Secrets sent</source>
        <translation>已发送的机密</translation>
    </message>
    <message>
        <source>Secrets bound to this host that the app put into its requests, and how many times.</source>
        <translation>应用放入发往此主机的请求中的、绑定到此主机的机密，以及次数。</translation>
    </message>
    <message>
        <source>%1 ×%2</source>
        <translation>%1 ×%2</translation>
    </message>
</context>
<context>
    <name>zeus::NetworkSettings</name>
    <message>
        <source>The keychain did not answer in time.</source>
        <translation>钥匙串未及时响应。</translation>
    </message>
    <message>
        <source>The keychain refused it: %1</source>
        <translation>钥匙串拒绝了此操作：%1</translation>
    </message>
</context>
<context>
    <name>zeus::ReviewPanel</name>
    <message>
        <source>1 change</source>
        <translation>1 项更改</translation>
    </message>
    <message>
        <source>%1 changes</source>
        <translation>%1 项更改</translation>
    </message>
    <message>
        <source>… and %1 more</source>
        <translation>… 还有 %1 项</translation>
    </message>
    <message>
        <source>No review copies. Sessions in review mode keep the agent&apos;s changes here until you apply or discard them.</source>
        <translation>没有审阅副本。审阅模式下的会话会把智能体的更改保留在这里，直到您应用或丢弃它们。</translation>
    </message>
    <message>
        <source>&amp;Session:</source>
        <translation>会话(&amp;S)：</translation>
    </message>
    <message>
        <source>Review copy</source>
        <translation>审阅副本</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>List the changes of this copy again</source>
        <translation>重新列出此副本的更改</translation>
    </message>
    <message>
        <source>Changes</source>
        <translation>更改</translation>
    </message>
    <message>
        <source>&amp;Apply Selected</source>
        <translation>应用所选(&amp;A)</translation>
    </message>
    <message>
        <source>Write the picked changes into your folder</source>
        <translation>将选中的更改写入您的文件夹</translation>
    </message>
    <message>
        <source>Apply A&amp;ll</source>
        <translation>全部应用(&amp;L)</translation>
    </message>
    <message>
        <source>Write every change into your folder except the flagged ones (they need their own confirmation)</source>
        <translation>将除已标记更改以外的所有更改写入您的文件夹（已标记的更改需要单独确认）</translation>
    </message>
    <message>
        <source>D&amp;iscard Copy…</source>
        <translation>丢弃副本(&amp;I)…</translation>
    </message>
    <message>
        <source>Remove the review copy and everything the agent changed in it</source>
        <translation>删除审阅副本以及智能体在其中所做的全部更改</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>Session %1
Folder: %2
Container: %3</source>
        <translation>会话 %1
文件夹：%2
容器：%3</translation>
    </message>
    <message>
        <source>Working…</source>
        <translation>正在处理…</translation>
    </message>
    <message>
        <source>Copy taken %1</source>
        <translation>副本创建于 %1</translation>
    </message>
    <message>
        <source>Copy taken %1 · %2</source>
        <translation>副本创建于 %1 · %2</translation>
    </message>
    <message>
        <source>Folder: %1
Container: %2 (%3)</source>
        <translation>文件夹：%1
容器：%2（%3）</translation>
    </message>
    <message>
        <source>Listing the changes…</source>
        <translation>正在列出更改…</translation>
    </message>
    <message>
        <source>No changes: the copy holds what the folder held when it was taken.</source>
        <translation>没有更改：副本的内容与创建副本时文件夹的内容相同。</translation>
    </message>
    <message>
        <source>%1 picked</source>
        <translation>已选中 %1 项</translation>
    </message>
    <message>
        <source>%1 flagged</source>
        <translation>已标记 %1 项</translation>
    </message>
    <message>
        <source>Could not list the changes: %1</source>
        <translation>无法列出更改：%1</translation>
    </message>
    <message>
        <source>Nothing to review.</source>
        <translation>没有需要审阅的内容。</translation>
    </message>
    <message>
        <source>Apply changes that run code?</source>
        <translation>要应用会运行代码的更改吗？</translation>
    </message>
    <message>
        <source>These changes make your computer run code (a build, CI, an editor task or a git hook may run what the agent wrote). Apply them only if you have read them:</source>
        <translation>这些更改会让您的计算机运行代码（构建、CI、编辑器任务或 git 钩子可能会运行智能体写入的内容）。请仅在阅读过后再应用它们：</translation>
    </message>
    <message>
        <source>Applying 1 change…</source>
        <translation>正在应用 1 项更改…</translation>
    </message>
    <message>
        <source>Applying %1 changes…</source>
        <translation>正在应用 %1 项更改…</translation>
    </message>
    <message>
        <source>Apply did not finish: %1</source>
        <translation>应用未完成：%1</translation>
    </message>
    <message>
        <source>Replace your version?</source>
        <translation>要替换您的版本吗？</translation>
    </message>
    <message>
        <source>These files changed on your computer since the copy was taken. Take Theirs replaces your version with the agent&apos;s; what you changed in them is lost:</source>
        <translation>自创建副本以来，这些文件已在您的计算机上被修改。“采用副本版本”会用智能体的版本替换您的版本；您在其中所做的修改将会丢失：</translation>
    </message>
    <message>
        <source>Every change in it will be lost.</source>
        <translation>其中的所有更改都将丢失。</translation>
    </message>
    <message>
        <source>It holds no changes.</source>
        <translation>其中没有任何更改。</translation>
    </message>
    <message>
        <source>1 change will be lost.</source>
        <translation>1 项更改将会丢失。</translation>
    </message>
    <message>
        <source>%1 changes will be lost.</source>
        <translation>%1 项更改将会丢失。</translation>
    </message>
    <message>
        <source>Discard review copy?</source>
        <translation>要丢弃审阅副本吗？</translation>
    </message>
    <message>
        <source>Discard the review copy of session %1?</source>
        <translation>要丢弃会话 %1 的审阅副本吗？</translation>
    </message>
    <message>
        <source>Discarding the copy…</source>
        <translation>正在丢弃副本…</translation>
    </message>
    <message>
        <source>Could not discard the review copy: %1</source>
        <translation>无法丢弃审阅副本：%1</translation>
    </message>
    <message>
        <source>The review copy of session %1 was discarded.</source>
        <translation>会话 %1 的审阅副本已丢弃。</translation>
    </message>
    <message>
        <source>Filter by path</source>
        <translation>按路径筛选</translation>
    </message>
    <message>
        <source>Filter the changes by path</source>
        <translation>按路径筛选更改</translation>
    </message>
    <message>
        <source>%1 hidden by the filter</source>
        <translation>%1 项被筛选隐藏</translation>
    </message>
    <message>
        <source>Fetching the agent&apos;s commits…</source>
        <translation>正在取回代理的提交…</translation>
    </message>
</context>
<context>
    <name>zeus::ReviewService</name>
    <message>
        <source>No review copy is kept for this session.</source>
        <translation>没有为此会话保留审阅副本。</translation>
    </message>
</context>
<context>
    <name>zeus::RuntimePanel</name>
    <message>
        <source>Re-&amp;check</source>
        <translation>重新检测(&amp;C)</translation>
    </message>
    <message>
        <source>Probe Apple Containerization, Docker and Podman again</source>
        <translation>重新检测 Apple Containerization、Docker 和 Podman</translation>
    </message>
    <message>
        <source>Runtime probes</source>
        <translation>运行时检测</translation>
    </message>
    <message>
        <source>Runtime</source>
        <translation>运行时</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>详细信息</translation>
    </message>
    <message>
        <source>What to do</source>
        <translation>解决办法</translation>
    </message>
    <message>
        <source>Commands to run</source>
        <translation>要运行的命令</translation>
    </message>
    <message>
        <source>Cop&amp;y Commands</source>
        <translation>复制命令(&amp;Y)</translation>
    </message>
    <message>
        <source>%1 is ready.</source>
        <translation>%1 已就绪。</translation>
    </message>
    <message>
        <source>%1 %2 is ready.</source>
        <translation>%1 %2 已就绪。</translation>
    </message>
    <message>
        <source>Checking for a container runtime…</source>
        <translation>正在检测容器运行时…</translation>
    </message>
    <message>
        <source>(in use)</source>
        <translation>（使用中）</translation>
    </message>
    <message>
        <source>To check it worked, run: %1</source>
        <translation>要确认是否成功，请运行：%1</translation>
    </message>
    <message>
        <source>Warning: %1 will not enforce %2 (rootless Podman without cgroup v2 delegation): a runaway command can use up this machine&apos;s memory or processes. Use cgroup v2 with the controllers delegated to your user, or run Podman rootful.</source>
        <translation>警告：%1 不会强制执行 %2（rootless Podman 未获得 cgroup v2 委派）：失控的命令可能耗尽本机的内存或进程。请使用 cgroup v2 并把控制器委派给你的用户，或以 root 方式运行 Podman。</translation>
    </message>
    <message>
        <source>Warning: %1 will not enforce %2: a runaway command can use up this machine&apos;s memory or processes. Enable the memory, pids and cpu cgroup controllers, then restart the engine.</source>
        <translation>警告：%1 不会强制执行 %2：失控的命令可能耗尽本机的内存或进程。请启用 memory、pids 和 cpu cgroup 控制器，然后重启引擎。</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>%1 is ready (%2).</source>
        <translation>%1 已就绪（%2）。</translation>
    </message>
    <message>
        <source>%1 %2 is ready (%3).</source>
        <translation>%1 %2 已就绪（%3）。</translation>
    </message>
    <message>
        <source>%1 Commands cannot run yet: no sandbox agent (see the banner above).</source>
        <translation>%1 命令暂时无法运行：没有沙箱代理（见上方横幅）。</translation>
    </message>
</context>
<context>
    <name>zeus::RuntimeProbe</name>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>Installed but not running</source>
        <translation>已安装但未运行</translation>
    </message>
    <message>
        <source>Permission denied</source>
        <translation>权限被拒绝</translation>
    </message>
    <message>
        <source>Probe timed out</source>
        <translation>检测超时</translation>
    </message>
    <message>
        <source>Too old</source>
        <translation>版本过旧</translation>
    </message>
    <message>
        <source>Unreadable answer</source>
        <translation>无法读取的应答</translation>
    </message>
    <message>
        <source>%1 is not installed (%2 was not found on PATH or could not be started).</source>
        <translation>%1 未安装（在 PATH 中找不到 %2，或无法启动它）。</translation>
    </message>
    <message>
        <source>`%1` did not answer within %2 ms and was stopped.</source>
        <translation>`%1` 在 %2 毫秒内没有应答，已被停止。</translation>
    </message>
    <message>
        <source>`%1` crashed: %2</source>
        <translation>`%1` 崩溃：%2</translation>
    </message>
    <message>
        <source>%1 uses runc %2, older than %3 (CVE-2024-21626); upgrade the engine and runc.</source>
        <translation>%1 使用的 runc %2 早于 %3（CVE-2024-21626）；请升级引擎和 runc。</translation>
    </message>
    <message>
        <source>Permission denied while connecting to the Docker daemon: this user may not use its socket (%1)</source>
        <translation>连接 Docker 守护进程时权限被拒绝：当前用户无权使用其套接字（%1）</translation>
    </message>
    <message>
        <source>Docker is installed but its daemon is not running (%1)</source>
        <translation>Docker 已安装，但其守护进程未运行（%1）</translation>
    </message>
    <message>
        <source>The Docker daemon is not reachable (exit code %1): %2</source>
        <translation>无法连接 Docker 守护进程（退出码 %1）：%2</translation>
    </message>
    <message>
        <source>`docker info` answered without a server version.</source>
        <translation>`docker info` 的应答中没有服务端版本。</translation>
    </message>
    <message>
        <source>`docker info` printed no readable JSON (exit code %1).</source>
        <translation>`docker info` 没有输出可读的 JSON（退出码 %1）。</translation>
    </message>
    <message>
        <source>Podman may not be used by this user (%1)</source>
        <translation>当前用户无权使用 Podman（%1）</translation>
    </message>
    <message>
        <source>Podman is installed but its service or machine is not running (%1)</source>
        <translation>Podman 已安装，但其服务或虚拟机未运行（%1）</translation>
    </message>
    <message>
        <source>`podman info` failed (exit code %1): %2</source>
        <translation>`podman info` 失败（退出码 %1）：%2</translation>
    </message>
    <message>
        <source>`podman info` printed no readable JSON.</source>
        <translation>`podman info` 没有输出可读的 JSON。</translation>
    </message>
    <message>
        <source>`container --version` gave no version (exit code %1): %2</source>
        <translation>`container --version` 没有给出版本（退出码 %1）：%2</translation>
    </message>
    <message>
        <source>`container system status` was not run.</source>
        <translation>未运行 `container system status`。</translation>
    </message>
    <message>
        <source>Apple Containerization is installed but its service is not running.</source>
        <translation>Apple Containerization 已安装，但其服务未运行。</translation>
    </message>
    <message>
        <source>Apple Containerization is installed but its service is not registered with launchd (never started).</source>
        <translation>Apple Containerization 已安装，但其服务未在 launchd 中注册（从未启动过）。</translation>
    </message>
    <message>
        <source>`container system status` reported an unknown status: %1</source>
        <translation>`container system status` 报告了未知状态：%1</translation>
    </message>
    <message>
        <source>Apple Containerization is installed but its service is not running (%1)</source>
        <translation>Apple Containerization 已安装，但其服务未运行（%1）</translation>
    </message>
    <message>
        <source>`container system status` failed (exit code %1): %2</source>
        <translation>`container system status` 失败（退出码 %1）：%2</translation>
    </message>
</context>
<context>
    <name>zeus::SandboxController</name>
    <message>
        <source>Refused: port %1 of this computer</source>
        <translation>已拒绝：本机的端口 %1</translation>
    </message>
    <message>
        <source>The sandbox of session %1 asked for port %2 of this computer, which was not exposed (--expose-host). It was refused.</source>
        <translation>会话 %1 的沙箱请求访问本机的端口 %2，但该端口未公开（--expose-host），已被拒绝。</translation>
    </message>
    <message>
        <source>Command failed</source>
        <translation>命令失败</translation>
    </message>
    <message>
        <source>The sandbox agent is not available (%1): commands run with plain exec, slower, and an allowlist session has no network.</source>
        <translation>沙箱代理不可用（%1）：命令改用普通 exec 运行，速度较慢，且允许列表会话没有网络。</translation>
    </message>
    <message>
        <source>Sandbox agent not available</source>
        <translation>沙箱代理不可用</translation>
    </message>
    <message>
        <source>The container runtime is still being checked.</source>
        <translation>仍在检查容器运行时。</translation>
    </message>
    <message>
        <source>The sandbox Dockerfile was not found. Reinstall %1, or set ZEUS_DOCKER_DIR to the folder that holds it.</source>
        <translation>未找到沙箱 Dockerfile。请重新安装 %1，或将 ZEUS_DOCKER_DIR 设置为包含它的文件夹。</translation>
    </message>
    <message>
        <source>Cannot build the image</source>
        <translation>无法构建镜像</translation>
    </message>
    <message>
        <source>The certificate of %1 is not trusted by the sandbox. If this network inspects TLS, add its CA to this computer&apos;s trust store; and if the sandbox does not get this computer&apos;s certificates, turn on Settings &gt; Network &gt; &quot;Trust this computer&apos;s root certificates in the sandbox&quot; (or run without --no-host-ca).</source>
        <translation>沙箱不信任 %1 的证书。如果此网络会检查 TLS，请把它的 CA 加入本机的信任存储；如果沙箱没有获得本机的证书，请在 设置 &gt; 网络 中打开“在沙箱中信任本机的根证书”（或运行时不要加 --no-host-ca）。</translation>
    </message>
    <message>
        <source>Certificate not trusted: %1</source>
        <translation>证书不受信任：%1</translation>
    </message>
    <message>
        <source>Secret kept from %1</source>
        <translation>未向 %1 发送机密</translation>
    </message>
    <message>
        <source>A command of session %1 sent a secret&apos;s placeholder to %2, a host it is not bound to (%3). The request was refused; nothing of it was sent.</source>
        <translation>会话 %1 的命令把机密的占位符发往 %2，而该机密并未绑定到这台主机（%3）。请求已被拒绝，没有发送任何内容。</translation>
    </message>
</context>
<context>
    <name>zeus::SecretApprovalDialog</name>
    <message>
        <source>Allow a secret?</source>
        <translation>允许使用密钥？</translation>
    </message>
    <message>
        <source>Command:</source>
        <translation>命令：</translation>
    </message>
    <message>
        <source>Folder: %1</source>
        <translation>文件夹：%1</translation>
    </message>
    <message>
        <source>The value goes into this command&apos;s environment only and is redacted from its output. Without an answer within 2 minutes the command is denied.</source>
        <translation>该值只会进入此命令的环境，并会从其输出中遮蔽。如果 2 分钟内没有回答，该命令将被拒绝。</translation>
    </message>
    <message>
        <source>Allow &amp;once</source>
        <translation>允许一次(&amp;O)</translation>
    </message>
    <message>
        <source>Allow for this &amp;session</source>
        <translation>在此会话中允许(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Always in this folder</source>
        <translation>在此文件夹中始终允许(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation>拒绝(&amp;D)</translation>
    </message>
    <message>
        <source>The agent asks to run a command with the secret %1.</source>
        <translation>代理请求使用密钥 %1 运行一条命令。</translation>
    </message>
    <message>
        <source>The agent asks to run a command with the secrets %1.</source>
        <translation>代理请求使用密钥 %1 运行一条命令。</translation>
    </message>
</context>
<context>
    <name>zeus::SecretBinding</name>
    <message>
        <source>&apos;%1&apos; is not a binding: write NAME=HOST[,HOST…], e.g. GITHUB_TOKEN=@github</source>
        <translation>“%1”不是绑定：请写成 NAME=HOST[,HOST…]，例如 GITHUB_TOKEN=@github</translation>
    </message>
    <message>
        <source>%1: an empty host in the list</source>
        <translation>%1：列表中有空主机</translation>
    </message>
    <message>
        <source>%1: &apos;%2&apos; is not a preset (known: %3)</source>
        <translation>%1：“%2”不是预设（已知：%3）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1: a binding names at least one host</source>
        <translation>%1：绑定至少要指定一个主机</translation>
    </message>
    <message>
        <source>%1: at most %2 hosts per secret</source>
        <translation>%1：每个机密最多 %2 个主机</translation>
    </message>
</context>
<context>
    <name>zeus::SecretBroker</name>
    <message>
        <source>No secret named %1 is stored on this computer. Stored: %2.</source>
        <translation>此计算机上没有存储名为 %1 的密钥。已存储：%2。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>The secret %1 was not approved for this command: without a user to ask, only the names given with --allow-secret are approved.</source>
        <translation>密钥 %1 未被批准用于此命令：没有可以询问的用户时，只有通过 --allow-secret 指定的名称才被批准。</translation>
    </message>
    <message>
        <source>Nobody approved the use of the secret within %1 seconds, so the command did not run.</source>
        <translation>在 %1 秒内无人批准使用该密钥，因此命令未运行。</translation>
    </message>
    <message>
        <source>The user denied the use of the secret for this command.</source>
        <translation>用户拒绝此命令使用该密钥。</translation>
    </message>
    <message>
        <source>Cancelled while waiting for the approval of a secret.</source>
        <translation>在等待密钥批准时已取消。</translation>
    </message>
    <message>
        <source>Cancelled while reading the secret from the keychain.</source>
        <translation>在从钥匙串读取密钥时已取消。</translation>
    </message>
    <message>
        <source>The secret %1 could not be read from the keychain: %2</source>
        <translation>无法从钥匙串读取密钥 %1：%2</translation>
    </message>
</context>
<context>
    <name>zeus::SecretPrompter</name>
    <message>
        <source>Allow a secret?</source>
        <translation>允许使用密钥？</translation>
    </message>
</context>
<context>
    <name>zeus::SecretStore</name>
    <message>
        <source>A secret&apos;s name is an environment variable name: capital letters, digits and _, not starting with a digit (e.g. GITHUB_TOKEN).</source>
        <translation>密钥名称是一个环境变量名：由大写字母、数字和 _ 组成，且不能以数字开头（例如 GITHUB_TOKEN）。</translation>
    </message>
    <message>
        <source>%1 is a name the sandbox or the shell relies on; choose another.</source>
        <translation>%1 是沙箱或 shell 依赖的名称；请选择其他名称。</translation>
    </message>
    <message>
        <source>A secret must be at least %1 bytes long: a shorter one would be redacted from ordinary output.</source>
        <translation>密钥长度至少为 %1 字节：更短的密钥会把普通输出也遮蔽掉。</translation>
    </message>
    <message>
        <source>A secret may be at most %1 bytes long.</source>
        <translation>密钥长度最多为 %1 字节。</translation>
    </message>
    <message>
        <source>A secret cannot contain a NUL byte (it goes into an environment variable).</source>
        <translation>密钥不能包含 NUL 字节（它会被放入环境变量）。</translation>
    </message>
    <message>
        <source>The keychain did not answer within %1 seconds. It may be locked and waiting for its password.</source>
        <translation>钥匙串在 %1 秒内没有响应。它可能已锁定，正在等待输入密码。</translation>
    </message>
    <message>
        <source>No value is stored in the keychain for this secret.</source>
        <translation>钥匙串中没有此密钥的值。</translation>
    </message>
    <message>
        <source>The keychain is locked or access to it was denied. Unlock it and try again.</source>
        <translation>钥匙串已锁定或访问被拒绝。请解锁后重试。</translation>
    </message>
    <message>
        <source>The keychain reported an error: %1</source>
        <translation>钥匙串报告了一个错误：%1</translation>
    </message>
    <message>
        <source>No keychain is available for secrets (%1). Zeus Desktop never stores a secret in plain text: start a keyring such as GNOME Keyring or KWallet.</source>
        <translation>没有可用于存储密钥的钥匙串（%1）。Zeus Desktop 从不以明文存储密钥：请启动 GNOME Keyring 或 KWallet 等密钥环。</translation>
    </message>
    <message>
        <source>no keychain service</source>
        <translation>没有钥匙串服务</translation>
    </message>
</context>
<context>
    <name>zeus::SecretsPage</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Last used</source>
        <translation>上次使用</translation>
    </message>
    <message>
        <source>&amp;Add…</source>
        <translation>添加(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Replace value…</source>
        <translation>替换值(&amp;R)…</translation>
    </message>
    <message>
        <source>De&amp;lete</source>
        <translation>删除(&amp;L)</translation>
    </message>
    <message>
        <source>Delete secret</source>
        <translation>删除密钥</translation>
    </message>
    <message>
        <source>Delete the secret %1 from the keychain?</source>
        <translation>要从钥匙串中删除密钥 %1 吗？</translation>
    </message>
    <message>
        <source>%1 is stored in the keychain.</source>
        <translation>%1 已存入钥匙串。</translation>
    </message>
    <message>
        <source>%1 was deleted.</source>
        <translation>%1 已删除。</translation>
    </message>
    <message>
        <source>never</source>
        <translation>从未</translation>
    </message>
    <message>
        <source>Waiting for the keychain…</source>
        <translation>正在等待钥匙串…</translation>
    </message>
    <message>
        <source>Add a secret</source>
        <translation>添加密钥</translation>
    </message>
    <message>
        <source>Replace %1</source>
        <translation>替换 %1</translation>
    </message>
    <message>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <source>&amp;Value:</source>
        <translation>值(&amp;V)：</translation>
    </message>
    <message>
        <source>GitHub</source>
        <translation>GitHub</translation>
    </message>
    <message>
        <source>npm registry</source>
        <translation>npm 仓库</translation>
    </message>
    <message>
        <source>PyPI</source>
        <translation>PyPI</translation>
    </message>
    <message>
        <source>Secrets live in the system keychain. A command gets one only when it asks for it by name and you allow it.</source>
        <translation>机密保存在系统钥匙串中。只有当命令按名称请求且你允许时，它才能得到机密。</translation>
    </message>
    <message>
        <source>Use only with</source>
        <translation>仅用于</translation>
    </message>
    <message>
        <source>&amp;Use only with…</source>
        <translation>仅用于(&amp;U)…</translation>
    </message>
    <message>
        <source>Keep the value out of the sandbox: the app puts it into requests to these hosts only.</source>
        <translation>让值不进入沙箱：应用只在发往这些主机的请求中填入它。</translation>
    </message>
    <message>
        <source>&lt;b&gt;Bound to hosts:&lt;/b&gt; the value never enters the sandbox. Commands get a placeholder (&lt;tt&gt;zeus-secret-NAME-…&lt;/tt&gt;) and the app puts the value into HTTPS requests to those hosts only; sent anywhere else, the request is refused.&lt;br&gt;&lt;b&gt;Not bound:&lt;/b&gt; the value goes into the environment of the command you allow and is redacted from its output. That stops an accidental echo, not a command that transforms the value before printing it.</source>
        <translation>&lt;b&gt;绑定到主机：&lt;/b&gt;值永远不会进入沙箱。命令得到一个占位符（&lt;tt&gt;zeus-secret-NAME-…&lt;/tt&gt;），应用只在发往这些主机的 HTTPS 请求中填入真实值；发往其他地方的请求会被拒绝。&lt;br&gt;&lt;b&gt;未绑定：&lt;/b&gt;值会进入你允许的命令的环境，并从其输出中遮蔽。这能防止意外回显，但无法阻止命令在打印前变换该值。</translation>
    </message>
    <message>
        <source>any command you allow (environment)</source>
        <translation>你允许的任何命令（环境变量）</translation>
    </message>
    <message>
        <source>Goes into the environment of a command you allow, redacted from its output.</source>
        <translation>进入你允许的命令的环境，并从其输出中遮蔽。</translation>
    </message>
    <message>
        <source>Never enters the sandbox: put into requests to %1 only.</source>
        <translation>永远不进入沙箱：只填入发往 %1 的请求。</translation>
    </message>
    <message>
        <source>%1 goes into the environment of the commands you allow again.</source>
        <translation>%1 重新进入你允许的命令的环境。</translation>
    </message>
    <message>
        <source>%1 is bound to %2: it never enters the sandbox.</source>
        <translation>%1 已绑定到 %2：它永远不会进入沙箱。</translation>
    </message>
    <message>
        <source>Use %1 only with…</source>
        <translation>%1 仅用于…</translation>
    </message>
    <message>
        <source>The value of %1 never enters the sandbox: commands get a placeholder, and the app puts the value into requests to these hosts only.</source>
        <translation>%1 的值永远不会进入沙箱：命令得到一个占位符，应用只在发往这些主机的请求中填入真实值。</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>&amp;Other hosts:</source>
        <translation>其他主机(&amp;O)：</translation>
    </message>
    <message>
        <source>Host rules as in Settings → Network. With none, the secret goes into the environment of the commands you allow, as before.</source>
        <translation>主机规则与“设置 → 网络”中相同。不填任何主机时，机密像以前一样进入你允许的命令的环境。</translation>
    </message>
</context>
<context>
    <name>zeus::SessionLogModel</name>
    <message>
        <source>[… %1 more characters]</source>
        <translation>[… 还有 %1 个字符]</translation>
    </message>
    <message>
        <source>error output: %1</source>
        <translation>错误输出：%1</translation>
    </message>
</context>
<context>
    <name>zeus::SessionLogView</name>
    <message>
        <source>Session log</source>
        <translation>会话日志</translation>
    </message>
    <message>
        <source>Commands, their output and results; error output is marked</source>
        <translation>命令及其输出和结果；错误输出已标记</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>Select &amp;All</source>
        <translation>全选(&amp;A)</translation>
    </message>
    <message>
        <source>C&amp;lear Log</source>
        <translation>清空日志(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Follow Output</source>
        <translation>跟随输出(&amp;F)</translation>
    </message>
    <message>
        <source>Scroll to the newest line and keep following it</source>
        <translation>滚动到最新一行并持续跟随</translation>
    </message>
    <message>
        <source>Scrolled up: 1 new line below.</source>
        <translation>已向上滚动：下方有 1 行新内容。</translation>
    </message>
    <message>
        <source>Scrolled up: %1 new lines below.</source>
        <translation>已向上滚动：下方有 %1 行新内容。</translation>
    </message>
    <message>
        <source>Scrolled up: not following new output.</source>
        <translation>已向上滚动：不再跟随新输出。</translation>
    </message>
</context>
<context>
    <name>zeus::SessionTableModel</name>
    <message>
        <source>Starting</source>
        <translation>正在启动</translation>
    </message>
    <message>
        <source>Running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>Container</source>
        <translation>容器</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Working directory</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Commands</source>
        <translation>命令数</translation>
    </message>
    <message>
        <source>%1 (+%2 queued)</source>
        <translation>%1（另有 %2 个排队）</translation>
    </message>
    <message>
        <source>Last exit</source>
        <translation>最近退出码</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>%1 · container: %2</source>
        <translation>%1 · 容器：%2</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>exited (%1)</source>
        <translation>已退出（%1）</translation>
    </message>
    <message>
        <source>exited</source>
        <translation>已退出</translation>
    </message>
    <message>
        <source>removed</source>
        <translation>已删除</translation>
    </message>
    <message>
        <source>exec (agent unavailable)</source>
        <translation>exec（代理不可用）</translation>
    </message>
    <message>
        <source>Runs via</source>
        <translation>运行方式</translation>
    </message>
    <message>
        <source>Changes to review</source>
        <translation>待审阅的更改</translation>
    </message>
    <message numerus="yes">
        <source>Changes to review (%n files)</source>
        <translation>
            <numerusform>待审阅的更改（%n 个文件）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>zeus::SessionsPanel</name>
    <message>
        <source>Sessions</source>
        <translation>会话</translation>
    </message>
    <message>
        <source>&amp;Stop Container</source>
        <translation>停止容器(&amp;S)</translation>
    </message>
    <message>
        <source>Cancel the selected session&apos;s commands and remove its container</source>
        <translation>取消所选会话的命令并删除其容器</translation>
    </message>
    <message>
        <source>Session log</source>
        <translation>会话日志</translation>
    </message>
    <message>
        <source>Select a session to see its commands and output.</source>
        <translation>选择一个会话以查看其命令和输出。</translation>
    </message>
    <message>
        <source>Session log: %1</source>
        <translation>会话日志：%1</translation>
    </message>
    <message>
        <source>%1 ms</source>
        <translation>%1 毫秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>exit %1 · %2</source>
        <translation>退出码 %1 · %2</translation>
    </message>
    <message>
        <source>timed out after %1</source>
        <translation>%1 后超时</translation>
    </message>
    <message>
        <source>cancelled after %1</source>
        <translation>%1 后已取消</translation>
    </message>
    <message>
        <source>failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <source>failed (%1): %2</source>
        <translation>失败（%1）：%2</translation>
    </message>
    <message>
        <source>output truncated</source>
        <translation>输出已截断</translation>
    </message>
    <message>
        <source>Open &amp;Port…</source>
        <translation>打开端口(&amp;P)…</translation>
    </message>
    <message>
        <source>Publish a port of the selected session&apos;s container on this computer&apos;s 127.0.0.1</source>
        <translation>将所选会话容器的一个端口发布到本机的 127.0.0.1</translation>
    </message>
    <message>
        <source>Open in &amp;Browser</source>
        <translation>在浏览器中打开(&amp;B)</translation>
    </message>
    <message>
        <source>Open the selected session&apos;s first published port in the browser</source>
        <translation>在浏览器中打开所选会话的第一个已发布端口</translation>
    </message>
    <message>
        <source>Ports: %1</source>
        <translation>端口：%1</translation>
    </message>
    <message>
        <source>Open Port</source>
        <translation>打开端口</translation>
    </message>
    <message>
        <source>Port a server listens on inside the sandbox of %1 (on its 127.0.0.1). It is published on this computer&apos;s 127.0.0.1 only.</source>
        <translation>%1 的沙箱内服务器监听的端口（位于其 127.0.0.1）。它只会发布到本机的 127.0.0.1。</translation>
    </message>
    <message>
        <source>Publish a Port?</source>
        <translation>发布端口？</translation>
    </message>
    <message>
        <source>The backend asks to publish port %1 of the sandbox of session %2 on this computer, so that a browser here can reach the server in it. It listens on 127.0.0.1 only; every user of this computer can connect to it.</source>
        <translation>后端请求将会话 %2 的沙箱端口 %1 发布到本机，以便此处的浏览器访问其中的服务器。它只监听 127.0.0.1；本机的每个用户都可以连接到它。</translation>
    </message>
    <message>
        <source>&amp;Publish</source>
        <translation>发布(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Deny</source>
        <translation>拒绝(&amp;D)</translation>
    </message>
</context>
<context>
    <name>zeus::SettingsDialog</name>
    <message>
        <source>%1 Settings</source>
        <translation>%1 设置</translation>
    </message>
    <message>
        <source>Backend URL</source>
        <translation>后端地址</translation>
    </message>
    <message>
        <source>&amp;Backend URL:</source>
        <translation>后端地址(&amp;B)：</translation>
    </message>
    <message>
        <source>Paste a new sign-in token</source>
        <translation>粘贴新的登录令牌</translation>
    </message>
    <message>
        <source>Sign-in token</source>
        <translation>登录令牌</translation>
    </message>
    <message>
        <source>Stored in the system keychain only</source>
        <translation>仅保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>&amp;Save to Keychain</source>
        <translation>保存到钥匙串(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Remove</source>
        <translation>删除(&amp;R)</translation>
    </message>
    <message>
        <source>Remove the stored token</source>
        <translation>删除已保存的令牌</translation>
    </message>
    <message>
        <source>Sign-in &amp;token:</source>
        <translation>登录令牌(&amp;T)：</translation>
    </message>
    <message>
        <source>The token is kept in the system keychain, never in a file. It is sent only to the backend, in the Authorization header.</source>
        <translation>令牌保存在系统钥匙串中，绝不写入文件。它只会通过 Authorization 请求头发送给后端。</translation>
    </message>
    <message>
        <source>&amp;Connection</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <source>Automatic (Apple Containerization, then Docker, then Podman)</source>
        <translation>自动（依次为 Apple Containerization、Docker、Podman）</translation>
    </message>
    <message>
        <source>Apple Containerization</source>
        <translation>Apple Containerization</translation>
    </message>
    <message>
        <source>Docker</source>
        <translation>Docker</translation>
    </message>
    <message>
        <source>Podman</source>
        <translation>Podman</translation>
    </message>
    <message>
        <source>Container &amp;runtime:</source>
        <translation>容器运行时(&amp;R)：</translation>
    </message>
    <message>
        <source>Sandbox image</source>
        <translation>沙箱镜像</translation>
    </message>
    <message>
        <source>Sandbox &amp;image:</source>
        <translation>沙箱镜像(&amp;I)：</translation>
    </message>
    <message>
        <source>Standard</source>
        <translation>标准</translation>
    </message>
    <message>
        <source>Hardened</source>
        <translation>加固</translation>
    </message>
    <message>
        <source>Hardening &amp;profile:</source>
        <translation>加固配置(&amp;P)：</translation>
    </message>
    <message>
        <source>Process limit</source>
        <translation>进程数上限</translation>
    </message>
    <message>
        <source>Process li&amp;mit:</source>
        <translation>进程数上限(&amp;M)：</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>Memory limit in MiB</source>
        <translation>内存上限（MiB）</translation>
    </message>
    <message>
        <source>Memory &amp;limit:</source>
        <translation>内存上限(&amp;L)：</translation>
    </message>
    <message>
        <source>CPU limit</source>
        <translation>CPU 上限</translation>
    </message>
    <message>
        <source>C&amp;PUs:</source>
        <translation>CPU 数(&amp;P)：</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Idle timeout in minutes</source>
        <translation>空闲超时（分钟）</translation>
    </message>
    <message>
        <source>Remove idle containers &amp;after:</source>
        <translation>空闲容器删除时间(&amp;A)：</translation>
    </message>
    <message>
        <source>&amp;Sandbox</source>
        <translation>沙箱(&amp;S)</translation>
    </message>
    <message>
        <source>Commands from the backend run only in folders you approved:</source>
        <translation>后端的命令只会在您批准的文件夹中运行：</translation>
    </message>
    <message>
        <source>Approved folders</source>
        <translation>已批准的文件夹</translation>
    </message>
    <message>
        <source>Re&amp;voke Approval</source>
        <translation>撤销批准(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Folders</source>
        <translation>文件夹(&amp;F)</translation>
    </message>
    <message>
        <source>Start %1 when I &amp;log in</source>
        <translation>登录时启动 %1(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;General</source>
        <translation>常规(&amp;G)</translation>
    </message>
    <message>
        <source>No folder approved yet. Choose one from the dashboard.</source>
        <translation>尚未批准任何文件夹。请在主面板中选择一个。</translation>
    </message>
    <message>
        <source>Everything in Standard, plus a read-only root file system and no network access. Commands that download or install will fail.</source>
        <translation>包含“标准”的全部限制，另外根文件系统只读且无网络访问。需要下载或安装的命令将会失败。</translation>
    </message>
    <message>
        <source>No capabilities, no privilege escalation, process, memory and CPU limits, your user&apos;s file ownership, network access.</source>
        <translation>不授予任何特权能力，禁止提权，限制进程数、内存和 CPU，文件归属于您的用户，可以访问网络。</translation>
    </message>
    <message>
        <source>This build cannot reach a system keychain, so a token cannot be stored. Use --headless with the ZEUS_DESKTOP_TOKEN environment variable instead.</source>
        <translation>此版本无法访问系统钥匙串，因此无法保存令牌。请改用 --headless 并设置环境变量 ZEUS_DESKTOP_TOKEN。</translation>
    </message>
    <message>
        <source>Talking to the keychain…</source>
        <translation>正在访问钥匙串…</translation>
    </message>
    <message>
        <source>Checking the keychain…</source>
        <translation>正在检查钥匙串…</translation>
    </message>
    <message>
        <source>A sign-in token is stored in the keychain.</source>
        <translation>钥匙串中已保存登录令牌。</translation>
    </message>
    <message>
        <source>No sign-in token is stored yet.</source>
        <translation>尚未保存登录令牌。</translation>
    </message>
    <message>
        <source>No system keychain is available, so the token cannot be stored.</source>
        <translation>没有可用的系统钥匙串，因此无法保存令牌。</translation>
    </message>
    <message>
        <source>The keychain is locked. Unlock it, then save the token again.</source>
        <translation>钥匙串已锁定。请解锁后重新保存令牌。</translation>
    </message>
    <message>
        <source>The keychain reported an error.</source>
        <translation>钥匙串报告了一个错误。</translation>
    </message>
    <message>
        <source>Changes apply to new containers once the current sessions have ended.</source>
        <translation>更改将在当前会话结束后对新建的容器生效。</translation>
    </message>
    <message>
        <source>Start at login is not available in this build.</source>
        <translation>此版本不支持登录时启动。</translation>
    </message>
    <message>
        <source>Through the sandbox agent (fast)</source>
        <translation>通过沙箱代理（快速）</translation>
    </message>
    <message>
        <source>One engine exec per command</source>
        <translation>每条命令一次引擎 exec</translation>
    </message>
    <message>
        <source>Run &amp;commands:</source>
        <translation>运行命令(&amp;C)：</translation>
    </message>
    <message>
        <source>The agent keeps one channel open per session: a command costs milliseconds instead of a new exec. Without it in the container, commands use exec and the session log says why.</source>
        <translation>代理为每个会话保持一个通道：一条命令只需几毫秒，而不是一次新的 exec。容器中没有代理时，命令使用 exec，会话日志会说明原因。</translation>
    </message>
    <message>
        <source>%1 (missing: commands for it are refused)</source>
        <translation>%1（不存在：针对它的命令会被拒绝）</translation>
    </message>
    <message>
        <source>%1 (changed since approval: inactive until approved again)</source>
        <translation>%1（批准后已改变：重新批准前不可用）</translation>
    </message>
    <message>
        <source>&amp;Network</source>
        <translation>网络(&amp;N)</translation>
    </message>
    <message>
        <source>Secre&amp;ts</source>
        <translation>密钥(&amp;T)</translation>
    </message>
    <message>
        <source>Command &amp;Approval</source>
        <translation>命令审批(&amp;A)</translation>
    </message>
    <message>
        <source>%1 (inside or around another approved folder: inactive until one is revoked)</source>
        <translation>%1（位于另一个已批准文件夹之内或包含它：在撤销其中一个之前不生效）</translation>
    </message>
    <message>
        <source>A&amp;gents (MCP)</source>
        <translation>智能体（MCP）(&amp;G)</translation>
    </message>
</context>
<context>
    <name>zeus::TarWriter</name>
    <message>
        <source>The copy stopped: %1 is not a path inside the folder.</source>
        <translation>复制已停止：%1 不是文件夹内的路径。</translation>
    </message>
    <message>
        <source>The copy stopped: %1 changed or could not be read since the folder was scanned. Start the session again.</source>
        <translation>复制已停止：自扫描文件夹以来 %1 已更改或无法读取。请重新开始会话。</translation>
    </message>
    <message>
        <source>The copy stopped: %1 changed while it was copied. Start the session again.</source>
        <translation>复制已停止：%1 在复制过程中发生了更改。请重新开始会话。</translation>
    </message>
</context>
<context>
    <name>zeus::TextDiff</name>
    <message numerus="yes">
        <source>Not shown: a side has more than %n line(s); compare the files with a diff tool.</source>
        <translation>
            <numerusform>未显示：其中一侧超过 %n 行；请使用差异比较工具比较这些文件。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>zeus::ToolDispatcher</name>
    <message>
        <source>The approved folder %1 no longer exists on this computer (deleted, moved or replaced by a file). Restore it, or approve another folder in Zeus Desktop.</source>
        <translation>已批准的文件夹 %1 在这台计算机上已不存在（已被删除、移动或被文件替换）。请恢复它，或在 Zeus Desktop 中批准另一个文件夹。</translation>
    </message>
    <message>
        <source>The approved folder %1 changed since it was approved (a part of its path is now a symbolic link to somewhere else). It stays inactive until the user approves it again in Zeus Desktop.</source>
        <translation>已批准的文件夹 %1 在批准后发生了改变（其路径的一部分现在是指向别处的符号链接）。在用户于 Zeus Desktop 中重新批准之前，它保持不可用。</translation>
    </message>
    <message>
        <source>No secret named %1 is stored on this computer.</source>
        <translation>这台计算机上没有存储名为 %1 的密钥。</translation>
    </message>
    <message>
        <source>The approved folder %1 is inside or around another approved folder (approved before Zeus Desktop refused that). Neither is used until the user revokes one of them in Zeus Desktop.</source>
        <translation>已批准的文件夹 %1 位于另一个已批准文件夹之内或包含它（在 Zeus Desktop 拒绝这种情况之前批准的）。在用户于 Zeus Desktop 中撤销其中一个之前，两者都不会被使用。</translation>
    </message>
</context>
<context>
    <name>zeus::TrayIcon</name>
    <message>
        <source>Open &amp;Dashboard</source>
        <translation>打开主面板(&amp;D)</translation>
    </message>
    <message>
        <source>Choose &amp;Working Directory…</source>
        <translation>选择工作目录(&amp;W)…</translation>
    </message>
    <message>
        <source>&amp;Recent Folders</source>
        <translation>最近的文件夹(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Connect</source>
        <translation>连接(&amp;C)</translation>
    </message>
    <message>
        <source>D&amp;iagnostics</source>
        <translation>诊断(&amp;I)</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Quit %1</source>
        <translation>退出 %1(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;Disconnect</source>
        <translation>断开(&amp;D)</translation>
    </message>
    <message>
        <source>No recent folders</source>
        <translation>没有最近的文件夹</translation>
    </message>
    <message>
        <source>%1 (changed since approval)</source>
        <translation>%1（批准后已改变）</translation>
    </message>
</context>
<context>
    <name>zeus::TrayNotifier</name>
    <message>
        <source>Blocked: %1:%2</source>
        <translation>已拦截：%1:%2</translation>
    </message>
    <message>
        <source>A command in session %1 tried to reach %2:%3, which the network allowlist does not allow (%4). Click to allow it once, for this session, or always for this folder.</source>
        <translation>会话 %1 中的一条命令试图访问 %2:%3，网络允许列表不允许该访问（%4）。点击可允许一次、在此会话中允许，或始终对此文件夹允许。</translation>
    </message>
    <message numerus="yes">
        <source>%n file(s) changed in %1</source>
        <translation>
            <numerusform>%1 中有 %n 个文件已更改</numerusform>
        </translation>
    </message>
    <message>
        <source>Changes to review in %1</source>
        <translation>%1 中有待审阅的更改</translation>
    </message>
    <message>
        <source>Session %1 worked on a copy of %2. Click to review its changes and apply the ones you want.</source>
        <translation>会话 %1 在 %2 的副本上工作。点击以审阅其更改，并应用您想要的部分。</translation>
    </message>
    <message>
        <source>Folder no longer exists</source>
        <translation>文件夹已不存在</translation>
    </message>
    <message>
        <source>Folder not approved</source>
        <translation>文件夹未获批准</translation>
    </message>
    <message>
        <source>%1
Approve the folder in the dashboard if the agent should work there.</source>
        <translation>%1
如果希望智能体在该文件夹中工作，请在主面板中批准它。</translation>
    </message>
    <message>
        <source>Command waiting for approval</source>
        <translation>命令等待审批</translation>
    </message>
    <message>
        <source>%1
in %2</source>
        <translation>%1
位于 %2</translation>
    </message>
</context>
<context>
    <name>zeus::TrayStatus</name>
    <message>
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>Working</source>
        <translation>工作中</translation>
    </message>
    <message>
        <source>Not connected</source>
        <translation>未连接</translation>
    </message>
    <message>
        <source>No container runtime</source>
        <translation>没有容器运行时</translation>
    </message>
    <message>
        <source>Error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Runtime: checking…</source>
        <translation>运行时：正在检测…</translation>
    </message>
    <message>
        <source>Runtime: %1</source>
        <translation>运行时：%1</translation>
    </message>
    <message>
        <source>Runtime: none usable</source>
        <translation>运行时：没有可用的</translation>
    </message>
    <message>
        <source>Connection: %1</source>
        <translation>连接：%1</translation>
    </message>
    <message>
        <source>(next attempt in %1 s)</source>
        <translation>（%1 秒后重试）</translation>
    </message>
    <message>
        <source>Working directory: none chosen</source>
        <translation>工作目录：未选择</translation>
    </message>
    <message>
        <source>Working directory: %1</source>
        <translation>工作目录：%1</translation>
    </message>
    <message>
        <source>1 session running</source>
        <translation>1 个会话运行中</translation>
    </message>
    <message>
        <source>%1 sessions running</source>
        <translation>%1 个会话运行中</translation>
    </message>
    <message>
        <source>1 command running</source>
        <translation>1 条命令运行中</translation>
    </message>
    <message>
        <source>%1 commands running</source>
        <translation>%1 条命令运行中</translation>
    </message>
    <message>
        <source>%1, %2</source>
        <translation>%1，%2</translation>
    </message>
    <message>
        <source>No sessions running</source>
        <translation>没有运行中的会话</translation>
    </message>
    <message>
        <source>Last error: %1</source>
        <translation>最近的错误：%1</translation>
    </message>
    <message>
        <source>The backend refused the sign-in token. Enter a new one in Settings.</source>
        <translation>后端拒绝了登录令牌。请在“设置”中输入新的令牌。</translation>
    </message>
    <message>
        <source>Checking for a container runtime…</source>
        <translation>正在检测容器运行时…</translation>
    </message>
    <message>
        <source>Choose and approve a working directory on the Overview page first.</source>
        <translation>请先在“概览”页面选择并批准一个工作目录。</translation>
    </message>
    <message>
        <source>Working directory: %1 no longer exists</source>
        <translation>工作目录：%1 已不存在</translation>
    </message>
    <message>
        <source>The approved folder %1 no longer exists.</source>
        <translation>已批准的文件夹 %1 已不存在。</translation>
    </message>
    <message>
        <source>The approved folder %1 no longer exists; restore it or choose another one on the Overview page.</source>
        <translation>已批准的文件夹 %1 已不存在；请恢复它，或在“概览”页面选择另一个文件夹。</translation>
    </message>
    <message>
        <source>Runtime: %1, not ready: no sandbox agent</source>
        <translation>运行时：%1，未就绪：没有沙箱代理</translation>
    </message>
</context>
<context>
    <name>zeus::WorkspaceGuard</name>
    <message>
        <source>No working directory was given.</source>
        <translation>没有指定工作目录。</translation>
    </message>
    <message>
        <source>The path contains a control character (such as a newline); it is refused.</source>
        <translation>路径中包含控制字符（例如换行符），已拒绝。</translation>
    </message>
    <message>
        <source>The working directory must be an absolute path.</source>
        <translation>工作目录必须是绝对路径。</translation>
    </message>
    <message>
        <source>The folder does not exist: %1</source>
        <translation>文件夹不存在：%1</translation>
    </message>
    <message>
        <source>The folder cannot be resolved: %1</source>
        <translation>无法解析文件夹：%1</translation>
    </message>
    <message>
        <source>This is not a folder: %1</source>
        <translation>这不是文件夹：%1</translation>
    </message>
    <message>
        <source>The resolved path contains a control character; it is refused.</source>
        <translation>解析后的路径中包含控制字符，已拒绝。</translation>
    </message>
    <message>
        <source>The root of the file system cannot be a working directory.</source>
        <translation>文件系统的根目录不能作为工作目录。</translation>
    </message>
    <message>
        <source>A drive root cannot be a working directory: %1</source>
        <translation>驱动器的根目录不能作为工作目录：%1</translation>
    </message>
    <message>
        <source>%1 is your home folder or contains it; choose a project folder inside it.</source>
        <translation>%1 是您的主文件夹或包含主文件夹；请选择其中的某个项目文件夹。</translation>
    </message>
    <message>
        <source>%1 is a system folder and cannot be a working directory.</source>
        <translation>%1 是系统文件夹，不能作为工作目录。</translation>
    </message>
    <message>
        <source>%1 is a system folder (%2) and cannot be a working directory.</source>
        <translation>%1 是系统文件夹（%2），不能作为工作目录。</translation>
    </message>
    <message>
        <source>%1 is the shared temporary folder (other programs&apos; sockets are in it); choose a folder inside it.</source>
        <translation>%1 是共享的临时文件夹（其中有其他程序的套接字）；请选择其中的某个文件夹。</translation>
    </message>
    <message>
        <source>%1 holds credentials, browser data or programs this computer runs (%2) and cannot be a working directory.</source>
        <translation>%1 存放凭据、浏览器数据或这台计算机会运行的程序（%2），不能作为工作目录。</translation>
    </message>
</context>
<context>
    <name>zeus::WorkspaceManifest</name>
    <message>
        <source>The stored manifest is not valid JSON: %1</source>
        <translation>已保存的清单不是有效的 JSON：%1</translation>
    </message>
    <message>
        <source>The stored manifest has an unknown version.</source>
        <translation>已保存的清单版本未知。</translation>
    </message>
    <message>
        <source>The stored manifest has a malformed entry: %1</source>
        <translation>已保存的清单中有格式错误的条目：%1</translation>
    </message>
    <message>
        <source>The stored manifest lists %1 twice.</source>
        <translation>已保存的清单将 %1 列出了两次。</translation>
    </message>
    <message>
        <source>%1 is not a folder.</source>
        <translation>%1 不是文件夹。</translation>
    </message>
    <message>
        <source>The scan of the folder was cancelled.</source>
        <translation>文件夹扫描已取消。</translation>
    </message>
    <message>
        <source>%1 could not be read: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
    <message>
        <source>The folder %1 could not be read.</source>
        <translation>无法读取文件夹 %1。</translation>
    </message>
    <message>
        <source>The name of %1 is not valid UTF-8; rename it or add it to .zeusignore.</source>
        <translation>%1 的名称不是有效的 UTF-8；请重命名它或将其加入 .zeusignore。</translation>
    </message>
    <message>
        <source>The folder holds %1 to copy, more than the limit of %2. The largest: %3. Add what the agent does not need to .zeusignore, or raise the limit in Settings.</source>
        <translation>该文件夹中需要复制 %1，超过了 %2 的上限。最大的项：%3。请将代理不需要的内容加入 .zeusignore，或在设置中提高上限。</translation>
    </message>
    <message>
        <source>%1 could not be read (%2); make it readable or add it to .zeusignore.</source>
        <translation>无法读取 %1（%2）；请使其可读或将其加入 .zeusignore。</translation>
    </message>
    <message>
        <source>The container&apos;s file list ends in the middle of a record.</source>
        <translation>容器的文件列表在一条记录中间结束。</translation>
    </message>
    <message>
        <source>The container&apos;s file list has an unsafe path in record %1.</source>
        <translation>容器的文件列表第 %1 条记录中有不安全的路径。</translation>
    </message>
    <message>
        <source>The container&apos;s file list has a malformed record %1 (%2).</source>
        <translation>容器的文件列表第 %1 条记录格式错误（%2）。</translation>
    </message>
    <message>
        <source>The container&apos;s file list names %1 twice.</source>
        <translation>容器的文件列表将 %1 列出了两次。</translation>
    </message>
    <message>
        <source>The container&apos;s file list is more than %1 bytes, the cap for a review copy: the agent left too many files or too long names (add folders to .zeusignore, or discard the copy).</source>
        <translation>容器的文件列表超过 %1 字节，即审阅副本的上限：代理留下了太多文件或过长的名称（请将文件夹加入 .zeusignore，或丢弃该副本）。</translation>
    </message>
    <message>
        <source>The container&apos;s file list has more than %1 entries, the cap for a review copy: the agent left too many files (add folders to .zeusignore, or discard the copy).</source>
        <translation>容器的文件列表超过 %1 个条目，即审阅副本的上限：代理留下了太多文件（请将文件夹加入 .zeusignore，或丢弃该副本）。</translation>
    </message>
</context>
<context>
    <name>zeus::WorkspacePanel</name>
    <message>
        <source>No working directory chosen.</source>
        <translation>尚未选择工作目录。</translation>
    </message>
    <message>
        <source>C&amp;hoose Folder…</source>
        <translation>选择文件夹(&amp;H)…</translation>
    </message>
    <message>
        <source>Pick the folder that commands may see, mounted at /workspace</source>
        <translation>选择命令可以看到的文件夹，它将挂载到 /workspace</translation>
    </message>
    <message>
        <source>&amp;Approve</source>
        <translation>批准(&amp;A)</translation>
    </message>
    <message>
        <source>Allow commands from the backend to run in this folder</source>
        <translation>允许后端的命令在此文件夹中运行</translation>
    </message>
    <message>
        <source>Recent folders</source>
        <translation>最近的文件夹</translation>
    </message>
    <message>
        <source>&amp;Recent folders:</source>
        <translation>最近的文件夹(&amp;R)：</translation>
    </message>
    <message>
        <source>Choose the Working Directory</source>
        <translation>选择工作目录</translation>
    </message>
    <message>
        <source>Choose the one folder that commands may see. It is mounted at /workspace inside the container; nothing else on this computer is visible to them.</source>
        <translation>请选择命令可以看到的唯一文件夹。它会挂载到容器内的 /workspace；这台电脑上的其他内容对命令都不可见。</translation>
    </message>
    <message>
        <source>Refused (%1): %2</source>
        <translation>已拒绝（%1）：%2</translation>
    </message>
    <message>
        <source>Approved. Commands run with this folder mounted at /workspace: %1</source>
        <translation>已批准。命令运行时此文件夹挂载于 /workspace：%1</translation>
    </message>
    <message>
        <source>Approved for this run (--workspace). Commands run with this folder mounted at /workspace: %1</source>
        <translation>已为本次运行批准（--workspace）。命令运行时此文件夹挂载于 /workspace：%1</translation>
    </message>
    <message>
        <source>Approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <source>This folder can be used: %1. Approve it to let the backend run commands in it.</source>
        <translation>此文件夹可以使用：%1。批准后，后端即可在其中运行命令。</translation>
    </message>
    <message>
        <source>Approved, but the folder no longer exists: %1. Commands for it are refused (workspace_invalid) until it is back. Restore it, choose another folder, or revoke the approval in Settings.</source>
        <translation>已批准，但该文件夹已不存在：%1。在它恢复之前，针对它的命令都会被拒绝（workspace_invalid）。请恢复它、选择另一个文件夹，或在“设置”中撤销批准。</translation>
    </message>
    <message>
        <source>Commands can change every file in the approved folder. Git&apos;s config and hooks are protected; build files, scripts and editor tasks are not: look at what changed before you build or open the project on this computer.</source>
        <translation>命令可以修改已批准文件夹中的每个文件。Git 的配置和钩子受到保护；构建文件、脚本和编辑器任务则没有：在这台计算机上构建或打开项目之前，请先查看改动了什么。</translation>
    </message>
    <message>
        <source>Changed since approval: %1 now leads to %2 (a part of its path was replaced by a symbolic link). Commands for it are refused until it is the approved folder again; revoke it in Settings if it should stay this way.</source>
        <translation>批准后已改变：%1 现在指向 %2（其路径的一部分被替换成了符号链接）。在它重新成为已批准的文件夹之前，针对它的命令都会被拒绝；如果应保持现状，请在“设置”中撤销批准。</translation>
    </message>
</context>
</TS>
