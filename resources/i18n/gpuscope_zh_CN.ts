<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>Which GPUs this machine has, which layer of the stack (driver, ROCm, CUDA, PyTorch) can use each one, and why not; live telemetry and short benchmarks.</source>
        <translation>这台机器有哪些 GPU，软件栈的每一层（驱动、ROCm、CUDA、PyTorch）能否使用每块 GPU，不能的话原因何在；另有实时遥测和简短的基准测试。</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>Platform</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>About gpuscope</source>
        <translation>关于 gpuscope</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy these versions to the clipboard, for a bug report</source>
        <translation>将这些版本信息复制到剪贴板，用于提交问题报告</translation>
    </message>
    <message>
        <source>Copied to the clipboard</source>
        <translation>已复制到剪贴板</translation>
    </message>
</context>
<context>
    <name>BenchChart</name>
    <message>
        <source>Matmul throughput: measured vs datasheet peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run a suite with matmul benchmarks to see the chart.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No datasheet peak to draw: {why}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Grey: the datasheet peak of {card}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this card</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No datasheet figure for {labels}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured (blue) and datasheet peak (grey) per precision</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BenchCompareDialog</name>
    <message>
        <source>Compare runs {a} and {b}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A: run {id} — {what}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B: run {id} — {what}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>B vs A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Note</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BenchHistoryPanel</name>
    <message>
        <source>Past runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>#</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>When</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the selected run in the table and chart</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select two runs to compare them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ok, {n} results</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not ok</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{count} runs kept in {path}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No runs kept yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run history: {message}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kept as run {id}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The run was not kept: {message}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete {count} past run(s) from the history?</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BenchPage</name>
    <message>
        <source>Benchmarks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Microbenchmarks in a separate process with the chosen Python&apos;s PyTorch. Each result is set against the card&apos;s datasheet peak and published measurements, with the clocks, power and temperature recorded while it ran.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The window shows a replayed or imported machine; benchmarks always run on this machine.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Python:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>this Python (gpuscope&apos;s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pick an interpreter whose environment has the ROCm or CUDA build of torch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quick</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Matmul</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished">内存</translation>
    </message>
    <message>
        <source>Transfer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attention</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run {suite}: {ids}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run all</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The full suite on every GPU the worker sees, one after the other (the CPU when there is none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation type="unfinished">取消</translation>
    </message>
    <message>
        <source>No run yet: press a Run button.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Value</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Spread (min–max, n)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>% of peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rel. error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Library</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>During the run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Looking for environments failed: {message}</source>
        <translation type="unfinished">查找环境失败：{message}</translation>
    </message>
    <message>
        <source>Choose a Python interpreter</source>
        <translation type="unfinished">选择 Python 解释器</translation>
    </message>
    <message>
        <source>Auto (first GPU, else CPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Starting the worker with {python} (importing torch)…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{suite}: {count} benchmarks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>worker pid {pid}: importing torch…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{n} of {count}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled: {count} of {total} reported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Done: {count} benchmarks in {seconds:.0f} s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ended early: {count} of {total} reported</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>compared with: {what}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>compared with: datasheet of the {card}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no datasheet for CPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Telemetry: none ({why})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Past run #{id} of {when}: </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The {count} results before it are kept below.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancelled: {message}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The benchmark worker crashed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The benchmark worker aborted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The benchmark worker was killed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The benchmark worker hung and was stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The benchmark worker ran out of time and was stopped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Out of memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The benchmark worker could not start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No torch in this interpreter</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No such device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Another version of the benchmark worker</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The benchmark worker exited early</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Showing past run #{id}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DetailLabel</name>
    <message>
        <source>more…</source>
        <translation>展开…</translation>
    </message>
    <message>
        <source>less</source>
        <translation>收起</translation>
    </message>
</context>
<context>
    <name>EnvironmentResults</name>
    <message>
        <source>none of the frameworks gpuscope knows (PyTorch, JAX, TensorFlow, ONNX Runtime) is installed</source>
        <translation>未安装 gpuscope 能识别的任何框架（PyTorch、JAX、TensorFlow、ONNX Runtime）</translation>
    </message>
    <message>
        <source>Framework</source>
        <translation>框架</translation>
    </message>
    <message>
        <source>Version</source>
        <translation>版本</translation>
    </message>
    <message>
        <source>Build</source>
        <translation>构建</translation>
    </message>
    <message>
        <source>Sees a GPU</source>
        <translation>检测到 GPU</translation>
    </message>
    <message>
        <source>Arch list</source>
        <translation>架构列表</translation>
    </message>
    <message>
        <source>Smoke test</source>
        <translation>冒烟测试</translation>
    </message>
    <message>
        <source>Python {version}</source>
        <translation>Python {version}</translation>
    </message>
    <message>
        <source>Could not inspect: {error}</source>
        <translation>无法检查：{error}</translation>
    </message>
    <message>
        <source>no answer</source>
        <translation>无应答</translation>
    </message>
    <message>
        <source>Error: {error}</source>
        <translation>错误：{error}</translation>
    </message>
    <message>
        <source>No GPU on this machine, so nothing for it to use.</source>
        <translation>这台机器上没有 GPU，因此没有可供它使用的设备。</translation>
    </message>
    <message>
        <source>GPU {index}</source>
        <translation>GPU {index}</translation>
    </message>
</context>
<context>
    <name>FindingRow</name>
    <message>
        <source>Evidence: {references}</source>
        <translation>证据：{references}</translation>
    </message>
</context>
<context>
    <name>FixLine</name>
    <message>
        <source>Select to copy part of it, or press Copy</source>
        <translation>可以选中其中一部分来复制，或点击“复制”</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy this command to the clipboard</source>
        <translation>将这条命令复制到剪贴板</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
</context>
<context>
    <name>FrameworkRow</name>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>yes ({count} device)</source>
        <translation>是（{count} 个设备）</translation>
    </message>
    <message>
        <source>yes ({count} devices)</source>
        <translation>是（{count} 个设备）</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
</context>
<context>
    <name>FrameworksPage</name>
    <message>
        <source>Frameworks</source>
        <translation>框架</translation>
    </message>
    <message>
        <source>Add interpreter…</source>
        <translation>添加解释器…</translation>
    </message>
    <message>
        <source>Inspect</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Stop waiting; the interpreters still running end on their own time limit</source>
        <translation>停止等待；仍在运行的解释器会在各自的时限到达时结束</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Looking for Python environments…</source>
        <translation>正在查找 Python 环境…</translation>
    </message>
    <message>
        <source>{count} environment found</source>
        <translation>找到 {count} 个环境</translation>
    </message>
    <message>
        <source>{count} environments found</source>
        <translation>找到 {count} 个环境</translation>
    </message>
    <message>
        <source>No Python environment found: add an interpreter</source>
        <translation>未找到 Python 环境：请添加解释器</translation>
    </message>
    <message>
        <source>Looking for environments failed: {message}</source>
        <translation>查找环境失败：{message}</translation>
    </message>
    <message>
        <source>added by hand</source>
        <translation>手动添加</translation>
    </message>
    <message>
        <source>Choose a Python interpreter</source>
        <translation>选择 Python 解释器</translation>
    </message>
    <message>
        <source>Tick at least one environment to inspect.</source>
        <translation>请至少勾选一个要检查的环境。</translation>
    </message>
    <message>
        <source>Inspecting {count} environment…</source>
        <translation>正在检查 {count} 个环境…</translation>
    </message>
    <message>
        <source>Inspecting {count} environments…</source>
        <translation>正在检查 {count} 个环境…</translation>
    </message>
    <message>
        <source>Inspected {count} environment in {seconds} s</source>
        <translation>已检查 {count} 个环境，用时 {seconds} 秒</translation>
    </message>
    <message>
        <source>Inspected {count} environments in {seconds} s</source>
        <translation>已检查 {count} 个环境，用时 {seconds} 秒</translation>
    </message>
    <message>
        <source>Cancelled: stopped waiting (the interpreters still running end on their own time limit)</source>
        <translation>已取消：不再等待（仍在运行的解释器会在各自的时限到达时结束）</translation>
    </message>
    <message>
        <source>Inspection failed: {message}</source>
        <translation>检查失败：{message}</translation>
    </message>
    <message>
        <source>The frameworks named in the imported outputs (PyTorch&apos;s collect_env). Nothing is inspected on this machine while its imported outputs are shown.</source>
        <translation>这里是导入的输出（PyTorch 的 collect_env）中列出的框架。显示导入的输出时，不会检查这台机器上的任何内容。</translation>
    </message>
    <message>
        <source>No framework output among the imported files (paste PyTorch&apos;s `python -m torch.utils.collect_env` to see one).</source>
        <translation>导入的文件中没有框架的输出（粘贴 PyTorch 的 `python -m torch.utils.collect_env` 的输出即可在此看到）。</translation>
    </message>
    <message>
        <source>Nothing inspected yet: tick environments above and press Inspect.</source>
        <translation>尚未检查：请勾选上方的环境，然后点击“检查”。</translation>
    </message>
    <message>
        <source>Tick the Python environments to inspect: gpuscope starts each interpreter in a separate process, imports the frameworks it has and runs a tiny matrix multiplication on each GPU they see.</source>
        <translation>勾选要检查的 Python 环境：gpuscope 会在单独的进程中启动每个解释器，导入其中安装的框架，并在它们检测到的每块 GPU 上运行一次很小的矩阵乘法。</translation>
    </message>
    <message>
        <source>imported outputs</source>
        <translation>导入的输出</translation>
    </message>
    <message>
        <source>inspected when the snapshot was taken</source>
        <translation>在生成快照时检查</translation>
    </message>
</context>
<context>
    <name>GpuCard</name>
    <message>
        <source>the kernel driver (/sys/class/drm)</source>
        <translation>内核驱动（/sys/class/drm）</translation>
    </message>
    <message>
        <source>the KFD topology, which ROCm enumerates</source>
        <translation>KFD 拓扑（ROCm 从这里枚举设备）</translation>
    </message>
    <message>
        <source>the AMD SMI library</source>
        <translation>AMD SMI 库</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s NVML library</source>
        <translation>NVIDIA 的 NVML 库</translation>
    </message>
    <message>
        <source>GPU {index}</source>
        <translation>GPU {index}</translation>
    </message>
    <message>
        <source>unnamed GPU</source>
        <translation>未命名的 GPU</translation>
    </message>
    <message>
        <source>could be: {names}</source>
        <translation>可能是：{names}</translation>
    </message>
    <message>
        <source>Several cards share this PCI id, and what gpuscope could read does not tell them apart.</source>
        <translation>多款显卡共用这个 PCI ID，而 gpuscope 读取到的信息无法区分它们。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Seen by</source>
        <translation>可见于</translation>
    </message>
    <message>
        <source>Vendor</source>
        <translation>厂商</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>系列</translation>
    </message>
    <message>
        <source>Compute capability</source>
        <translation>计算能力</translation>
    </message>
    <message>
        <source>gfx target</source>
        <translation>gfx 目标</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Board</source>
        <translation>板卡</translation>
    </message>
    <message>
        <source>{count} SMs</source>
        <translation>{count} 个 SM</translation>
    </message>
    <message>
        <source>{count} CUs</source>
        <translation>{count} 个 CU</translation>
    </message>
    <message>
        <source>Compute units</source>
        <translation>计算单元</translation>
    </message>
    <message>
        <source>PCI bus</source>
        <translation>PCI 总线</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>驱动</translation>
    </message>
    <message>
        <source>{vram} carved out + {gtt} shared (GTT)</source>
        <translation>{vram} 专用 + {gtt} 共享（GTT）</translation>
    </message>
    <message>
        <source>Seen by {what}.</source>
        <translation>{what}：能看到这块 GPU。</translation>
    </message>
    <message>
        <source>Still asking {what}.</source>
        <translation>{what}：仍在查询…</translation>
    </message>
    <message>
        <source>Not seen by {what}.</source>
        <translation>{what}：看不到这块 GPU。</translation>
    </message>
    <message>
        <source>KFD does not list this GPU, so ROCm (HIP, PyTorch on ROCm) will not see it.</source>
        <translation>KFD 没有列出这块 GPU，因此 ROCm（HIP、基于 ROCm 的 PyTorch）将看不到它。</translation>
    </message>
    <message>
        <source>KFD: {reason}</source>
        <translation>KFD：{reason}</translation>
    </message>
    <message>
        <source>amdgpu (in-tree, kernel {kernel})</source>
        <translation>amdgpu（内核自带，内核 {kernel}）</translation>
    </message>
    <message>
        <source>amdgpu (in-tree)</source>
        <translation>amdgpu（内核自带）</translation>
    </message>
    <message>
        <source>{driver}, version {version}</source>
        <translation>{driver}，版本 {version}</translation>
    </message>
    <message>
        <source>{driver} (version unknown)</source>
        <translation>{driver}（版本未知）</translation>
    </message>
    <message>
        <source>{first} and {last}</source>
        <translation>{first} 和 {last}</translation>
    </message>
    <message>
        <source>ROCm cannot use this GPU: this user cannot open {paths}.</source>
        <translation>ROCm 无法使用这块 GPU：当前用户无法打开 {paths}。</translation>
    </message>
    <message>
        <source>You are in group {groups} but this login session predates it: log out and back in.</source>
        <translation>你已加入用户组（{groups}），但当前登录会话是在加入之前开始的：请注销后重新登录。</translation>
    </message>
    <message>
        <source>the owning group</source>
        <translation>设备的所属组</translation>
    </message>
    <message>
        <source>Fix: {hint}</source>
        <translation>修复方法：{hint}</translation>
    </message>
</context>
<context>
    <name>GpuStackColumn</name>
    <message>
        <source>compute capability {version}</source>
        <translation>计算能力 {version}</translation>
    </message>
    <message>
        <source>no framework output among the imported files</source>
        <translation>导入的文件中没有框架的输出</translation>
    </message>
    <message>
        <source>inspect it on the Frameworks page</source>
        <translation>请在“框架”页面检查</translation>
    </message>
    <message>
        <source>no PyTorch inspected ({where})</source>
        <translation>尚未检查 PyTorch（{where}）</translation>
    </message>
    <message>
        <source>GPU {index}</source>
        <translation>GPU {index}</translation>
    </message>
    <message>
        <source>unnamed GPU</source>
        <translation>未命名的 GPU</translation>
    </message>
    <message>
        <source>Also about this GPU</source>
        <translation>与这块 GPU 有关的其他问题</translation>
    </message>
    <message>
        <source>✗ Blocked at: {layers}</source>
        <translation>✗ 受阻于：{layers}</translation>
    </message>
    <message>
        <source>✓ Usable, with a warning at: {layers}</source>
        <translation>✓ 可用，但有警告：{layers}</translation>
    </message>
    <message>
        <source>✓ Usable</source>
        <translation>✓ 可用</translation>
    </message>
    <message>
        <source>? gpuscope checks the AMD and NVIDIA stacks only</source>
        <translation>? gpuscope 只检查 AMD 和 NVIDIA 的软件栈</translation>
    </message>
    <message>
        <source>? Not shown to be usable: some layers could not be checked</source>
        <translation>? 无法确认可用：有些层未能检查</translation>
    </message>
</context>
<context>
    <name>ImportDialog</name>
    <message>
        <source>Paste rocminfo, rocm-smi, amd-smi, nvidia-smi, collect_env, dmesg, lspci output here</source>
        <translation>在此粘贴 rocminfo、rocm-smi、amd-smi、nvidia-smi、collect_env、dmesg、lspci 的输出</translation>
    </message>
    <message>
        <source>not a format gpuscope recognises</source>
        <translation>不是 gpuscope 能识别的格式</translation>
    </message>
    <message>
        <source>Choose files or paste an output first.</source>
        <translation>请先选择文件或粘贴输出。</translation>
    </message>
    <message>
        <source>Import outputs</source>
        <translation>导入输出</translation>
    </message>
    <message>
        <source>Diagnose another machine from what its tools printed. Several outputs from one machine are read together, as one machine.</source>
        <translation>根据另一台机器上各种工具的输出来诊断它。来自同一台机器的多份输出会合并读取，视为一台机器。</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Open files…</source>
        <translation>打开文件…</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>Or paste</source>
        <translation>或者粘贴</translation>
    </message>
    <message>
        <source>Reading…</source>
        <translation>正在读取…</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Choose tool outputs</source>
        <translation>选择工具的输出</translation>
    </message>
    <message>
        <source>Text outputs (*.txt *.log *.xml *.json *.csv);;All files (*)</source>
        <translation>文本输出 (*.txt *.log *.xml *.json *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>The import returned nothing</source>
        <translation>导入没有返回任何结果</translation>
    </message>
    <message>
        <source>nothing imported</source>
        <translation>未导入任何内容</translation>
    </message>
    <message>
        <source>The import failed: {message}</source>
        <translation>导入失败：{message}</translation>
    </message>
</context>
<context>
    <name>LayerBox</name>
    <message>
        <source>works</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>blocked</source>
        <translation>受阻</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>does not apply</source>
        <translation>不适用</translation>
    </message>
</context>
<context>
    <name>LegendTable</name>
    <message>
        <source>now</source>
        <translation>当前</translation>
    </message>
    <message>
        <source>min</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>avg</source>
        <translation>平均</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>last</source>
        <translation>最后</translation>
    </message>
</context>
<context>
    <name>OverviewPage</name>
    <message>
        <source>Kernel (sysfs)</source>
        <translation>内核（sysfs）</translation>
    </message>
    <message>
        <source>running…</source>
        <translation>运行中…</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>What each layer answered is in the probes table below; the Host section still describes this machine.</source>
        <translation>各层的应答见下方的探测表；“主机”一节描述的仍是这台机器。</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Probes</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>{count} GPU</source>
        <translation>{count} 块 GPU</translation>
    </message>
    <message>
        <source>{count} GPUs</source>
        <translation>{count} 块 GPU</translation>
    </message>
    <message>
        <source>{count} found so far; still asking: {titles}</source>
        <translation>目前找到 {count}；仍在查询：{titles}</translation>
    </message>
    <message>
        <source>{count} found</source>
        <translation>找到 {count}</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>正在查找 GPU…</translation>
    </message>
    <message>
        <source>Waiting for: {titles}</source>
        <translation>正在等待：{titles}</translation>
    </message>
    <message>
        <source>No GPU found</source>
        <translation>未找到 GPU</translation>
    </message>
    <message>
        <source>saw no GPU</source>
        <translation>未发现 GPU</translation>
    </message>
    <message>
        <source>No probe that looks for GPUs has run.</source>
        <translation>查找 GPU 的探测都没有运行。</translation>
    </message>
    <message>
        <source>Reading host details…</source>
        <translation>正在读取主机信息…</translation>
    </message>
    <message>
        <source>the host probe did not run</source>
        <translation>主机探测没有运行</translation>
    </message>
    <message>
        <source>No host details: {why}</source>
        <translation>没有主机信息：{why}</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Probe</source>
        <translation>探测</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Hint</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>probe {name}, took {seconds} s</source>
        <translation>探测 {name}，用时 {seconds} 秒</translation>
    </message>
    <message>
        <source>probe {name}</source>
        <translation>探测 {name}</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>{count} physical</source>
        <translation>{count} 个物理核心</translation>
    </message>
    <message>
        <source>{count} logical</source>
        <translation>{count} 个逻辑核心</translation>
    </message>
    <message>
        <source>{ram} RAM, {swap} swap</source>
        <translation>{ram} 内存，{swap} 交换空间</translation>
    </message>
    <message>
        <source>{ram} RAM</source>
        <translation>{ram} 内存</translation>
    </message>
    <message>
        <source>container: {hint}</source>
        <translation>容器：{hint}</translation>
    </message>
    <message>
        <source>container</source>
        <translation>容器</translation>
    </message>
    <message>
        <source>virtual machine: {hint}</source>
        <translation>虚拟机：{hint}</translation>
    </message>
    <message>
        <source>virtual machine</source>
        <translation>虚拟机</translation>
    </message>
    <message>
        <source>no WSL, container or virtual machine detected</source>
        <translation>未检测到 WSL、容器或虚拟机</translation>
    </message>
    <message>
        <source>System</source>
        <translation>系统</translation>
    </message>
    <message>
        <source>Kernel</source>
        <translation>内核</translation>
    </message>
    <message>
        <source>Cores</source>
        <translation>核心</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Runs in</source>
        <translation>运行环境</translation>
    </message>
</context>
<context>
    <name>OverviewStrip</name>
    <message>
        <source>Overview</source>
        <translation>总览</translation>
    </message>
    <message>
        <source>GPU utilization (and host CPU) over everything there is. Drag the box, stretch its edges, or click to move it.</source>
        <translation>全部数据范围内的 GPU 利用率（以及主机 CPU）。拖动方框、拉伸其边缘，或点击以移动它。</translation>
    </message>
</context>
<context>
    <name>ProcessTable</name>
    <message>
        <source>Process</source>
        <translation>进程</translation>
    </message>
    <message>
        <source>VRAM (GiB)</source>
        <translation>VRAM（GiB）</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>{device}, from {source}</source>
        <translation>{device}，来自 {source}</translation>
    </message>
    <message>
        <source>not available: {reason}</source>
        <translation>不可用：{reason}</translation>
    </message>
    <message>
        <source>no processes on this GPU</source>
        <translation>这块 GPU 上没有进程</translation>
    </message>
    <message>
        <source>(name not readable)</source>
        <translation>（无法读取名称）</translation>
    </message>
    <message>
        <source>the driver does not say how much VRAM</source>
        <translation>驱动没有提供 VRAM 用量</translation>
    </message>
    <message>
        <source>GPU processes</source>
        <translation>GPU 进程</translation>
    </message>
</context>
<context>
    <name>ReportPage</name>
    <message>
        <source>Report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export PNG…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A 1200-pixel-wide picture for a forum post or a chat</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export HTML…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>One self-contained web page: nothing is loaded from anywhere</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Markdown…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>For GitHub issues and forums; the long parts fold away</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export JSON…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The diagnosis and benchmark results, for gpuscope&apos;s Compare page</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the report picture on the clipboard, to paste into a post</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy Markdown</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Put the Markdown report on the clipboard, to paste into a GitHub issue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add benchmark run…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show the results of a benchmark run saved with &apos;gpuscope bench -o FILE&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Redact personal details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Host and user names, home paths, serial numbers, UUIDs, MAC and IP addresses become placeholders such as &lt;host-1&gt; in every export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What is removed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Found</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Becomes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Times</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Making the report…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not read the benchmark run: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Web page (*.html)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON report (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export the report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add a benchmark run</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The report picture is on the clipboard.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The Markdown report is on the clipboard.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Writing {0}…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The report could not be made: {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Wrote {0}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Could not write {0}: {1}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Added {0} benchmark run(s).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>What is removed ({0})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Personal details will be replaced by placeholders.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing personal was found to remove.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} value(s) are replaced by placeholders in every export.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not redacted: the exports may contain your host and user names, home paths, serial numbers, UUIDs, MAC and IP addresses.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This machine, read live.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{0} benchmark run(s).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No benchmark results (Add benchmark run…).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No telemetry yet.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ShortcutsDialog</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Every command with a key, by menu; they work from anywhere in the window.</source>
        <translation>所有带快捷键的命令，按菜单分组；在窗口中的任何位置都可以使用。</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
</context>
<context>
    <name>StackPage</name>
    <message>
        <source>No GPU found</source>
        <translation>未找到 GPU</translation>
    </message>
    <message>
        <source>Stack</source>
        <translation>软件栈</translation>
    </message>
    <message>
        <source>Whole machine</source>
        <translation>整机</translation>
    </message>
    <message>
        <source>Per GPU: from the kernel driver up to the framework</source>
        <translation>逐块 GPU：从内核驱动到框架</translation>
    </message>
    <message>
        <source>{count} GPU</source>
        <translation>{count} 块 GPU</translation>
    </message>
    <message>
        <source>{count} GPUs</source>
        <translation>{count} 块 GPU</translation>
    </message>
    <message>
        <source>{count} error</source>
        <translation>{count} 个错误</translation>
    </message>
    <message>
        <source>{count} errors</source>
        <translation>{count} 个错误</translation>
    </message>
    <message>
        <source>{count} warning</source>
        <translation>{count} 个警告</translation>
    </message>
    <message>
        <source>{count} warnings</source>
        <translation>{count} 个警告</translation>
    </message>
    <message>
        <source>from imported outputs</source>
        <translation>来自导入的输出</translation>
    </message>
    <message>
        <source>still asking {titles} (this may change)</source>
        <translation>仍在查询 {titles}（结果可能变化）</translation>
    </message>
    <message>
        <source>Nothing found that concerns the whole machine.</source>
        <translation>没有发现与整机有关的问题。</translation>
    </message>
    <message>
        <source>Looking for GPUs…</source>
        <translation>正在查找 GPU…</translation>
    </message>
    <message>
        <source>None of the imported outputs lists a GPU; the findings above say what stood in the way.</source>
        <translation>导入的输出中没有任何 GPU；上面的诊断结果说明了原因。</translation>
    </message>
    <message>
        <source>None of the imported outputs lists a GPU.</source>
        <translation>导入的输出中没有任何 GPU。</translation>
    </message>
    <message>
        <source>No probe found a GPU (the Overview&apos;s Probes table says what each layer answered); the findings above say what stood in the way.</source>
        <translation>没有任何探测找到 GPU（各层的应答见“概览”页的探测表）；上面的诊断结果说明了原因。</translation>
    </message>
    <message>
        <source>No probe found a GPU (the Overview&apos;s Probes table says what each layer answered).</source>
        <translation>没有任何探测找到 GPU（各层的应答见“概览”页的探测表）。</translation>
    </message>
</context>
<context>
    <name>TelemetryFeed</name>
    <message>
        <source>Live, {rate} Hz</source>
        <translation>实时，{rate} Hz</translation>
    </message>
    <message>
        <source>Recording {name}, empty</source>
        <translation>录制文件 {name}，为空</translation>
    </message>
    <message>
        <source>Recording {name}, {start} to {end}</source>
        <translation>录制文件 {name}，{start} 至 {end}</translation>
    </message>
    <message>
        <source>(the recorder stopped without closing it)</source>
        <translation>（录制程序停止时没有关闭该文件）</translation>
    </message>
    <message>
        <source>reading series {done} of {total}</source>
        <translation>正在读取数据序列 {done}/{total}</translation>
    </message>
    <message>
        <source>summarising {device} for zooming out</source>
        <translation>正在为缩小视图汇总 {device}</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>process lists are not stored in recordings</source>
        <translation>录制文件中不保存进程列表</translation>
    </message>
    <message>
        <source>GPU {index}: {name}</source>
        <translation>GPU {index}: {name}</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Demo data (synthetic traces, not this machine)</source>
        <translation>演示数据（合成曲线，并非这台机器）</translation>
    </message>
    <message>
        <source>Demo GPU {index} (synthetic)</source>
        <translation>演示 GPU {index}（合成）</translation>
    </message>
    <message>
        <source>{demo}: {count} GPU, {rate} Hz</source>
        <translation>{demo}：{count} 块 GPU，{rate} Hz</translation>
    </message>
    <message>
        <source>{demo}: {count} GPUs, {rate} Hz</source>
        <translation>{demo}：{count} 块 GPU，{rate} Hz</translation>
    </message>
</context>
<context>
    <name>TelemetryPage</name>
    <message>
        <source>{minutes} min</source>
        <translation>{minutes} 分钟</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
    <message>
        <source>Live telemetry starts when a sampler is attached</source>
        <translation>连接采样器后即开始实时遥测</translation>
    </message>
    <message>
        <source>{hours} h {minutes} min</source>
        <translation>{hours} 小时 {minutes} 分钟</translation>
    </message>
    <message>
        <source>{hours} h</source>
        <translation>{hours} 小时</translation>
    </message>
    <message>
        <source>{days} d {hours} h</source>
        <translation>{days} 天 {hours} 小时</translation>
    </message>
    <message>
        <source>{days} d</source>
        <translation>{days} 天</translation>
    </message>
    <message>
        <source>Telemetry</source>
        <translation>遥测</translation>
    </message>
    <message>
        <source>Back to live</source>
        <translation>回到实时</translation>
    </message>
    <message>
        <source>Follow the newest samples again</source>
        <translation>重新跟随最新的采样</translation>
    </message>
    <message>
        <source>Show the last {window}</source>
        <translation>显示最近 {window}</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>Fit everything there is</source>
        <translation>显示全部数据</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>暂停</translation>
    </message>
    <message>
        <source>Hold the charts still; samples keep being collected</source>
        <translation>冻结图表；采样仍继续进行</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Opening {name}…</source>
        <translation>正在打开 {name}…</translation>
    </message>
    <message>
        <source>no sample</source>
        <translation>无采样</translation>
    </message>
    <message>
        <source>not throttled</source>
        <translation>未降频</translation>
    </message>
    <message>
        <source>core {core}: {load} %</source>
        <translation>核心 {core}：{load} %</translation>
    </message>
    <message>
        <source>Show {window} up to the end of the range on show</source>
        <translation>显示截至当前范围末尾的 {window}</translation>
    </message>
    <message>
        <source>Wheel over a chart zooms, dragging pans; the overview&apos;s box moves too.</source>
        <translation>在图表上滚动滚轮可缩放，拖动可平移；也可以移动总览中的方框。</translation>
    </message>
    <message>
        <source>Wheel over a chart zooms, dragging pans; drag the overview&apos;s box to go anywhere.</source>
        <translation>在图表上滚动滚轮可缩放，拖动可平移；拖动总览中的方框可跳到任意位置。</translation>
    </message>
    <message>
        <source>Showing {day} {start} to {end} ({width} of {total}); stats are over this range.</source>
        <translation>显示 {day} {start} 至 {end}（{width}，共 {total}）；统计值针对这一范围。</translation>
    </message>
    <message>
        <source>Showing {day} {start} to {end} ({width}); stats are over this range.</source>
        <translation>显示 {day} {start} 至 {end}（{width}）；统计值针对这一范围。</translation>
    </message>
    <message>
        <source>Not following live: “Back to live” follows the newest samples.</source>
        <translation>未跟随实时数据：点击“回到实时”即可跟随最新的采样。</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Catch up with the samples collected while paused</source>
        <translation>追上暂停期间采集的数据</translation>
    </message>
    <message>
        <source>Paused at {time}: charts hold still while samples keep being collected. Resume to catch up.</source>
        <translation>已于 {time} 暂停：图表保持不动，采样仍继续进行。点击“继续”即可追上。</translation>
    </message>
    <message>
        <source>Paused: samples keep being collected. Resume to catch up.</source>
        <translation>已暂停：采样仍继续进行。点击“继续”即可追上。</translation>
    </message>
    <message>
        <source>the recording</source>
        <translation>录制文件</translation>
    </message>
    <message>
        <source>Opening {name}: {step}</source>
        <translation>正在打开 {name}：{step}</translation>
    </message>
    <message>
        <source>Could not open {name}: {reason}</source>
        <translation>无法打开 {name}：{reason}</translation>
    </message>
    <message>
        <source>Throttling (why the clocks are held back)</source>
        <translation>降频（时钟频率受限的原因）</translation>
    </message>
    <message>
        <source>Host CPU per core (%)</source>
        <translation>主机 CPU 各核心负载（%）</translation>
    </message>
    <message>
        <source>now</source>
        <translation>当前</translation>
    </message>
    <message>
        <source>at the end</source>
        <translation>范围末尾</translation>
    </message>
    <message>
        <source>no samples in this range</source>
        <translation>这一范围内没有采样</translation>
    </message>
    <message>
        <source>not available: {reason}</source>
        <translation>不可用：{reason}</translation>
    </message>
    <message>
        <source>{reasons} {when}; slowed {share} of the range</source>
        <translation>{when}：{reasons}；这一范围内有 {share} 的时间在降频</translation>
    </message>
    <message>
        <source>busiest in the range: core {core} (avg {load} %)</source>
        <translation>这一范围内最繁忙：核心 {core}（平均 {load} %）</translation>
    </message>
    <message>
        <source>Mean load per column: 0 %</source>
        <translation>每列的平均负载：0 %</translation>
    </message>
    <message>
        <source>waiting for the first process list</source>
        <translation>正在等待第一份进程列表</translation>
    </message>
    <message>
        <source>All GPUs</source>
        <translation>所有 GPU</translation>
    </message>
    <message>
        <source>Per-process VRAM, listed every few seconds off the sampling path; last list at {time}</source>
        <translation>各进程的 VRAM 用量，每隔几秒在采样路径之外获取一次；最近一次获取于 {time}</translation>
    </message>
    <message>
        <source>Per-process VRAM, listed every few seconds off the sampling path</source>
        <translation>各进程的 VRAM 用量，每隔几秒在采样路径之外获取一次</translation>
    </message>
    <message>
        <source>Per-process VRAM as listed at {time}</source>
        <translation>各进程的 VRAM 用量（获取于 {time}）</translation>
    </message>
    <message>
        <source>lost: {reason}</source>
        <translation>丢失：{reason}</translation>
    </message>
    <message>
        <source>no samples in this window</source>
        <translation>这一时间窗口内没有采样</translation>
    </message>
    <message>
        <source>at or above the warning level ({level})</source>
        <translation>达到或超过警告阈值（{level}）</translation>
    </message>
    <message>
        <source>waiting for samples</source>
        <translation>正在等待采样</translation>
    </message>
</context>
<context>
    <name>ThemeChoice</name>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
</context>
<context>
    <name>TimeAxis</name>
    <message>
        <source>now</source>
        <translation>现在</translation>
    </message>
    <message>
        <source>%d %b</source>
        <translation>%m-%d</translation>
    </message>
    <message>
        <source>{minutes} min</source>
        <translation>{minutes} 分钟</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} 秒</translation>
    </message>
</context>
<context>
    <name>Verdict</name>
    <message>
        <source>GPU {index}</source>
        <translation>GPU {index}</translation>
    </message>
    <message>
        <source>not known: the framework could not be inspected</source>
        <translation>未知：无法检查该框架</translation>
    </message>
    <message>
        <source>this</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>not checked: gpuscope checks AMD and NVIDIA GPUs, this is {vendor}</source>
        <translation>未检查：gpuscope 只检查 AMD 和 NVIDIA 的 GPU（这块 GPU 的厂商：{vendor}）</translation>
    </message>
    <message>
        <source>no: a CPU-only build never uses a GPU</source>
        <translation>否：仅支持 CPU 的构建从不使用 GPU</translation>
    </message>
    <message>
        <source>no: a {build} build cannot use {vendor} GPUs</source>
        <translation>否：{build} 构建无法使用 {vendor} 的 GPU</translation>
    </message>
    <message>
        <source>not known: a {build} build</source>
        <translation>未知：{build} 构建</translation>
    </message>
    <message>
        <source>no: {reason}</source>
        <translation>否：{reason}</translation>
    </message>
    <message>
        <source>no: built for {targets}, not {target}</source>
        <translation>否：为 {targets} 构建，不含 {target}</translation>
    </message>
    <message>
        <source>no: the build sees no GPU (a layer below it blocks it)</source>
        <translation>否：该构建看不到任何 GPU（下面某一层阻碍了它）</translation>
    </message>
    <message>
        <source>no: the build sees no GPU</source>
        <translation>否：该构建看不到任何 GPU</translation>
    </message>
    <message>
        <source>no: the smoke test {result}</source>
        <translation>否：冒烟测试结果：{result}</translation>
    </message>
    <message>
        <source>yes as device {device}, but: {warning}</source>
        <translation>是，作为设备 {device}，但是：{warning}</translation>
    </message>
    <message>
        <source>yes, but: {warning}</source>
        <translation>是，但是：{warning}</translation>
    </message>
    <message>
        <source>yes as device {device}</source>
        <translation>是，作为设备 {device}</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>not among the devices it lists (hidden by a *_VISIBLE_DEVICES variable?)</source>
        <translation>不在它列出的设备中（是否被某个 *_VISIBLE_DEVICES 变量隐藏了？）</translation>
    </message>
    <message>
        <source>not known: it did not say whether it sees a GPU; the layers below it work</source>
        <translation>未知：它没有报告是否能看到 GPU；下面各层工作正常</translation>
    </message>
    <message>
        <source>not known: it did not say whether it sees a GPU</source>
        <translation>未知：它没有报告是否能看到 GPU</translation>
    </message>
</context>
<context>
    <name>core</name>
    <message>
        <source>Kernel driver (sysfs)</source>
        <translation>内核驱动（sysfs）</translation>
    </message>
    <message>
        <source>KFD topology (ROCm)</source>
        <translation>KFD 拓扑（ROCm）</translation>
    </message>
    <message>
        <source>AMD SMI</source>
        <translation>AMD SMI</translation>
    </message>
    <message>
        <source>NVIDIA NVML</source>
        <translation>NVIDIA NVML</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Stack versions</source>
        <translation>软件栈版本</translation>
    </message>
    <message>
        <source>Kernel driver (amdgpu)</source>
        <translation>内核驱动（amdgpu）</translation>
    </message>
    <message>
        <source>Device nodes (/dev/kfd)</source>
        <translation>设备节点（/dev/kfd）</translation>
    </message>
    <message>
        <source>ROCm runtime (KFD/HSA)</source>
        <translation>ROCm 运行时（KFD/HSA）</translation>
    </message>
    <message>
        <source>Kernel driver (nvidia)</source>
        <translation>内核驱动（nvidia）</translation>
    </message>
    <message>
        <source>Driver library (NVML)</source>
        <translation>驱动库（NVML）</translation>
    </message>
    <message>
        <source>CUDA driver</source>
        <translation>CUDA 驱动</translation>
    </message>
    <message>
        <source>Framework (PyTorch)</source>
        <translation>框架（PyTorch）</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>this user can open them</source>
        <translation>当前用户可以打开</translation>
    </message>
    <message>
        <source>NVML answers</source>
        <translation>NVML 有应答</translation>
    </message>
    <message>
        <source>the Windows driver serves the GPU here</source>
        <translation>这里由 Windows 驱动管理这块 GPU</translation>
    </message>
    <message>
        <source>no /dev/kfd under WSL or Windows</source>
        <translation>WSL 和 Windows 下没有 /dev/kfd</translation>
    </message>
    <message>
        <source>not checked (no rocminfo or KFD evidence)</source>
        <translation>未检查（没有 rocminfo 或 KFD 的证据）</translation>
    </message>
    <message>
        <source>GPU utilization</source>
        <translation>GPU 利用率</translation>
    </message>
    <message>
        <source>VRAM used</source>
        <translation>已用 VRAM</translation>
    </message>
    <message>
        <source>VRAM total</source>
        <translation>VRAM 总量</translation>
    </message>
    <message>
        <source>GTT used (system memory)</source>
        <translation>已用 GTT（系统内存）</translation>
    </message>
    <message>
        <source>Temperature (edge)</source>
        <translation>温度（边缘）</translation>
    </message>
    <message>
        <source>Temperature (junction/hotspot)</source>
        <translation>温度（结点/热点）</translation>
    </message>
    <message>
        <source>Temperature (memory)</source>
        <translation>温度（显存）</translation>
    </message>
    <message>
        <source>Power</source>
        <translation>功耗</translation>
    </message>
    <message>
        <source>Power cap</source>
        <translation>功耗上限</translation>
    </message>
    <message>
        <source>Graphics clock</source>
        <translation>图形时钟</translation>
    </message>
    <message>
        <source>Memory clock</source>
        <translation>显存时钟</translation>
    </message>
    <message>
        <source>Fan</source>
        <translation>风扇</translation>
    </message>
    <message>
        <source>PCIe generation</source>
        <translation>PCIe 代数</translation>
    </message>
    <message>
        <source>PCIe width</source>
        <translation>PCIe 位宽</translation>
    </message>
    <message>
        <source>PCIe receive</source>
        <translation>PCIe 接收</translation>
    </message>
    <message>
        <source>PCIe transmit</source>
        <translation>PCIe 发送</translation>
    </message>
    <message>
        <source>PCIe bandwidth (both directions)</source>
        <translation>PCIe 带宽（双向）</translation>
    </message>
    <message>
        <source>Throttling</source>
        <translation>降频</translation>
    </message>
    <message>
        <source>Host CPU</source>
        <translation>主机 CPU</translation>
    </message>
    <message>
        <source>Host RAM used</source>
        <translation>主机已用内存</translation>
    </message>
    <message>
        <source>Host swap used</source>
        <translation>主机已用交换空间</translation>
    </message>
    <message>
        <source>lanes</source>
        <translation>通道</translation>
    </message>
    <message>
        <source>power cap</source>
        <translation>功耗上限</translation>
    </message>
    <message>
        <source>thermal</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>current limit</source>
        <translation>电流限制</translation>
    </message>
    <message>
        <source>hardware slowdown</source>
        <translation>硬件减速</translation>
    </message>
    <message>
        <source>clock setting</source>
        <translation>时钟设置</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>library missing</source>
        <translation>缺少库</translation>
    </message>
    <message>
        <source>driver missing</source>
        <translation>缺少驱动</translation>
    </message>
    <message>
        <source>permission denied</source>
        <translation>权限不足</translation>
    </message>
    <message>
        <source>not applicable</source>
        <translation>不适用</translation>
    </message>
    <message>
        <source>not captured</source>
        <translation>未采集</translation>
    </message>
    <message>
        <source>timeout</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>discrete</source>
        <translation>独立显卡</translation>
    </message>
    <message>
        <source>integrated</source>
        <translation>集成显卡</translation>
    </message>
    <message>
        <source>virtual</source>
        <translation>虚拟</translation>
    </message>
    <message>
        <source>partition</source>
        <translation>分区</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>graphics</source>
        <translation>图形</translation>
    </message>
</context>
</TS>
