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
    <name>BarChart</name>
    <message>
        <source>Chart</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>higher is better</source>
        <translation>越高越好</translation>
    </message>
    <message>
        <source>lower is better</source>
        <translation>越低越好</translation>
    </message>
    <message>
        <source>no figure</source>
        <translation>无数据</translation>
    </message>
</context>
<context>
    <name>BenchChart</name>
    <message>
        <source>Matmul throughput: measured vs datasheet peak</source>
        <translation>矩阵乘法吞吐量：实测值与规格峰值</translation>
    </message>
    <message>
        <source>Run a suite with matmul benchmarks to see the chart.</source>
        <translation>运行包含矩阵乘法基准测试的套件后即可看到图表。</translation>
    </message>
    <message>
        <source>No datasheet peak to draw: {why}.</source>
        <translation>没有可绘制的规格峰值：{why}。</translation>
    </message>
    <message>
        <source>Grey: the datasheet peak of {card}.</source>
        <translation>灰色：{card} 的规格峰值。</translation>
    </message>
    <message>
        <source>this card</source>
        <translation>这块显卡</translation>
    </message>
    <message>
        <source>No datasheet figure for {labels}.</source>
        <translation>{labels} 没有规格数据。</translation>
    </message>
    <message>
        <source>No matmul result to draw</source>
        <translation>没有可绘制的矩阵乘法结果</translation>
    </message>
    <message>
        <source>Measured (blue) and datasheet peak (grey) per precision</source>
        <translation>各精度的实测值（蓝色）与规格峰值（灰色）</translation>
    </message>
</context>
<context>
    <name>BenchCompareDialog</name>
    <message>
        <source>Compare runs {a} and {b}</source>
        <translation>比较运行 {a} 和 {b}</translation>
    </message>
    <message>
        <source>A: run {id} — {what}</source>
        <translation>A：运行 {id} — {what}</translation>
    </message>
    <message>
        <source>B: run {id} — {what}</source>
        <translation>B：运行 {id} — {what}</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>Unit</source>
        <translation>单位</translation>
    </message>
    <message>
        <source>B vs A</source>
        <translation>B 相对 A</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>BenchHistoryPanel</name>
    <message>
        <source>Past runs</source>
        <translation>历史运行</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Outcome</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Show the selected run in the table and chart</source>
        <translation>在表格和图表中显示所选的运行</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Select two runs to compare them</source>
        <translation>选择两次运行进行比较</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>ok, {n} results</source>
        <translation>正常，{n} 项结果</translation>
    </message>
    <message>
        <source>not ok</source>
        <translation>异常</translation>
    </message>
    <message>
        <source>Runs kept: {count}, in {path}</source>
        <translation>已保存 {count} 次运行，位于 {path}</translation>
    </message>
    <message>
        <source>No runs kept yet.</source>
        <translation>尚未保存任何运行。</translation>
    </message>
    <message>
        <source>Run history: {message}</source>
        <translation>运行历史：{message}</translation>
    </message>
    <message>
        <source>Kept as run {id}.</source>
        <translation>已保存为运行 {id}。</translation>
    </message>
    <message>
        <source>The run was not kept: {message}</source>
        <translation>此次运行未能保存：{message}</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <source>Delete {count} past run(s) from the history?</source>
        <translation>要从历史中删除 {count} 次运行吗？</translation>
    </message>
</context>
<context>
    <name>BenchPage</name>
    <message>
        <source>No telemetry was recorded for this result.</source>
        <translation>此结果没有记录遥测数据。</translation>
    </message>
    <message>
        <source>{label}: {count} samples</source>
        <translation>{label}：{count} 个样本</translation>
    </message>
    <message>
        <source> at {rate} Hz</source>
        <translation>，{rate} Hz</translation>
    </message>
    <message>
        <source>(min / median / max)</source>
        <translation>（最小 / 中位数 / 最大）</translation>
    </message>
    <message>
        <source>Throttled in {count} of {total} samples: {reasons}</source>
        <translation>{total} 个样本中有 {count} 个降频：{reasons}</translation>
    </message>
    <message>
        <source>Not throttled — {source}</source>
        <translation>未降频 — {source}</translation>
    </message>
    <message>
        <source>{name}: not available ({reason})</source>
        <translation>{name}：不可用（{reason}）</translation>
    </message>
    <message>
        <source>Benchmarks</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>Microbenchmarks in a separate process with the chosen Python&apos;s PyTorch. Each result is set against the card&apos;s datasheet peak and published measurements, with the clocks, power and temperature recorded while it ran.</source>
        <translation>微基准测试在独立进程中使用所选 Python 的 PyTorch 运行。每项结果都与显卡的规格峰值及公开的实测数据对比，并附上运行期间记录的频率、功耗和温度。</translation>
    </message>
    <message>
        <source>The window shows a replayed or imported machine; benchmarks always run on this machine.</source>
        <translation>窗口显示的是回放或导入的机器；基准测试始终在本机运行。</translation>
    </message>
    <message>
        <source>Python:</source>
        <translation>Python：</translation>
    </message>
    <message>
        <source>this Python (gpuscope&apos;s)</source>
        <translation>当前 Python（gpuscope 自身）</translation>
    </message>
    <message>
        <source>Other…</source>
        <translation>其他…</translation>
    </message>
    <message>
        <source>Pick an interpreter whose environment has the ROCm or CUDA build of torch</source>
        <translation>选择一个环境中装有 ROCm 或 CUDA 版 torch 的解释器</translation>
    </message>
    <message>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <source>Run:</source>
        <translation>运行：</translation>
    </message>
    <message>
        <source>Quick</source>
        <translation>快速</translation>
    </message>
    <message>
        <source>Full</source>
        <translation>完整</translation>
    </message>
    <message>
        <source>Matmul</source>
        <translation>矩阵乘法</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>Transfer</source>
        <translation>传输</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力</translation>
    </message>
    <message>
        <source>Run {suite}: {ids}</source>
        <translation>运行 {suite}：{ids}</translation>
    </message>
    <message>
        <source>Run all</source>
        <translation>全部运行</translation>
    </message>
    <message>
        <source>The full suite on every GPU the worker sees, one after the other (the CPU when there is none)</source>
        <translation>在工作进程看到的每块 GPU 上依次运行完整套件（没有 GPU 时在 CPU 上运行）</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>No run yet: press a Run button.</source>
        <translation>尚未运行：请按一个运行按钮。</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Benchmark</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>Value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>Spread (min–max, n)</source>
        <translation>离散范围（最小–最大，n）</translation>
    </message>
    <message>
        <source>% of peak</source>
        <translation>峰值占比</translation>
    </message>
    <message>
        <source>Verdict</source>
        <translation>评价</translation>
    </message>
    <message>
        <source>Rel. error</source>
        <translation>相对误差</translation>
    </message>
    <message>
        <source>Library</source>
        <translation>计算库</translation>
    </message>
    <message>
        <source>During the run</source>
        <translation>运行期间</translation>
    </message>
    <message>
        <source>Looking for environments failed: {message}</source>
        <translation>查找环境失败：{message}</translation>
    </message>
    <message>
        <source>Choose a Python interpreter</source>
        <translation>选择 Python 解释器</translation>
    </message>
    <message>
        <source>Auto (first GPU, else CPU)</source>
        <translation>自动（GPU 优先）</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>GPU {index}: {name}</source>
        <translation>GPU {index}: {name}</translation>
    </message>
    <message>
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <source>Starting the worker with {python} (importing torch)…</source>
        <translation>正在用 {python} 启动工作进程（导入 torch）…</translation>
    </message>
    <message>
        <source>{suite}: {count} benchmarks</source>
        <translation>{suite}：{count} 项基准测试</translation>
    </message>
    <message>
        <source>worker pid {pid}: importing torch…</source>
        <translation>工作进程 pid {pid}：正在导入 torch…</translation>
    </message>
    <message>
        <source>{n} of {count}</source>
        <translation>第 {n} 项，共 {count} 项</translation>
    </message>
    <message>
        <source>Cancelled: {count} of {total} reported</source>
        <translation>已取消：已报告 {count} / {total} 项</translation>
    </message>
    <message>
        <source>Done: {count} benchmarks in {seconds:.0f} s</source>
        <translation>完成：{count} 项基准测试，用时 {seconds:.0f} 秒</translation>
    </message>
    <message>
        <source>Ended early: {count} of {total} reported</source>
        <translation>提前结束：已报告 {count} / {total} 项</translation>
    </message>
    <message>
        <source>compared with: {what}</source>
        <translation>对比对象：{what}</translation>
    </message>
    <message>
        <source>compared with: datasheet of the {card}</source>
        <translation>对比对象：{card} 的规格</translation>
    </message>
    <message>
        <source>no datasheet for CPUs</source>
        <translation>CPU 没有规格数据</translation>
    </message>
    <message>
        <source>Telemetry: none ({why})</source>
        <translation>遥测：无（{why}）</translation>
    </message>
    <message>
        <source>Past run #{id} of {when}: </source>
        <translation>历史运行 #{id}（{when}）：</translation>
    </message>
    <message>
        <source>The {count} results before it are kept below.</source>
        <translation>此前的 {count} 项结果保留在下方。</translation>
    </message>
    <message>
        <source>Out of memory in {benchmark}: {detail}</source>
        <translation>{benchmark} 显存不足：{detail}</translation>
    </message>
    <message>
        <source>the worker</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <source>Wrong results in {benchmark}: {message}</source>
        <translation>{benchmark} 结果错误：{message}</translation>
    </message>
    <message>
        <source>The benchmark worker hung</source>
        <translation>基准测试工作进程卡住了</translation>
    </message>
    <message>
        <source>Out of time</source>
        <translation>超时</translation>
    </message>
    <message>
        <source>A benchmark failed</source>
        <translation>某项基准测试失败</translation>
    </message>
    <message>
        <source> of {peak}</source>
        <translation>（峰值 {peak}）</translation>
    </message>
    <message>
        <source>Peak: {value} {unit} {what} — {note}
Source: {source}</source>
        <translation>峰值：{value} {unit} {what} — {note}
来源：{source}</translation>
    </message>
    <message>
        <source>normwise relative error vs float64: {error}</source>
        <translation>相对 float64 的范数相对误差：{error}</translation>
    </message>
    <message>
        <source> (tolerance {tolerance})</source>
        <translation>（容差 {tolerance}）</translation>
    </message>
    <message>
        <source>the same product twice was not bit-identical</source>
        <translation>同一乘积两次计算的结果并非逐位相同</translation>
    </message>
    <message>
        <source>Cancelled: {message}</source>
        <translation>已取消：{message}</translation>
    </message>
    <message>
        <source>The benchmark worker could not start</source>
        <translation>基准测试工作进程无法启动</translation>
    </message>
    <message>
        <source>No torch in this interpreter</source>
        <translation>此解释器中没有 torch</translation>
    </message>
    <message>
        <source>No such device</source>
        <translation>没有此设备</translation>
    </message>
    <message>
        <source>Another version of the benchmark worker</source>
        <translation>基准测试工作进程的版本不同</translation>
    </message>
    <message>
        <source>Showing past run #{id}</source>
        <translation>正在显示历史运行 #{id}</translation>
    </message>
</context>
<context>
    <name>ComparePage</name>
    <message>
        <source>gpuscope reports (*.json);;All files (*)</source>
        <translation>gpuscope 报告 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>read in a primary source (the vendor&apos;s documentation or code)</source>
        <translation>见于一手资料（厂商文档或代码）</translation>
    </message>
    <message>
        <source>read in a secondary source (a review or a spec database)</source>
        <translation>见于二手资料（评测或规格数据库）</translation>
    </message>
    <message>
        <source>derived by arithmetic from published figures</source>
        <translation>由公开数据推算得出</translation>
    </message>
    <message>
        <source>a widely published vendor figure not re-read in the sources at hand: to verify</source>
        <translation>厂商广泛公布、但未在现有资料中复核的数据：有待核实</translation>
    </message>
    <message>
        <source>uncertain or conflicting sources</source>
        <translation>资料不确定或相互矛盾</translation>
    </message>
    <message>
        <source>knowledge base</source>
        <translation>知识库</translation>
    </message>
    <message>
        <source>this machine</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>imported</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>imported from {source}</source>
        <translation>导入自 {source}</translation>
    </message>
    <message>
        <source>{label}: the latest result an imported report measured, and its share of the datasheet peak.</source>
        <translation>{label}：导入的报告中最近一次的实测结果，及其占规格峰值的比例。</translation>
    </message>
    <message>
        <source>Sources: {sources}</source>
        <translation>来源：{sources}</translation>
    </message>
    <message>
        <source>{name} is not in gpuscope&apos;s spec table, so there is no datasheet {what}; a report only says what the machine itself reported.</source>
        <translation>{name} 不在 gpuscope 的规格表中，因此没有 {what} 的规格数据；报告只包含该机器自身报告的内容。</translation>
    </message>
    <message>
        <source>The spec table has no {what} figure for the {name}.</source>
        <translation>规格表中没有 {name} 的 {what} 数据。</translation>
    </message>
    <message>
        <source>VRAM: {size}, as the report&apos;s machine reported it</source>
        <translation>显存：{size}，由报告中的机器自行报告</translation>
    </message>
    <message>
        <source>FP16 (dense matrix)</source>
        <translation>FP16（稠密矩阵）</translation>
    </message>
    <message>
        <source>This is the FP16-accumulate tensor rate NVIDIA quotes for GeForce cards; PyTorch matmul accumulates in FP32 (next row).</source>
        <translation>这是 NVIDIA 为 GeForce 显卡公布的 FP16 累加张量算力；PyTorch 的矩阵乘法使用 FP32 累加（见下一行）。</translation>
    </message>
    <message>
        <source>Only the FP16-accumulate figure of the {name} is published; its FP32-accumulate rate, which PyTorch uses, is not.</source>
        <translation>{name} 只公布了 FP16 累加的数据；PyTorch 使用的 FP32 累加算力未公布。</translation>
    </message>
    <message>
        <source>FP16 with FP32 accumulate (what PyTorch fp16 matmul runs at)</source>
        <translation>FP16 输入、FP32 累加（PyTorch fp16 矩阵乘法的运行方式）</translation>
    </message>
    <message>
        <source>Neither the architecture nor the gfx target of {name} is known.</source>
        <translation>{name} 的架构和 gfx 目标均未知。</translation>
    </message>
    <message>
        <source>ROCm is AMD&apos;s compute stack; it does not run on NVIDIA cards (CUDA does).</source>
        <translation>ROCm 是 AMD 的计算软件栈，不能在 NVIDIA 显卡上运行（NVIDIA 用 CUDA）。</translation>
    </message>
    <message>
        <source>The gfx target of {name} is not known, so its ROCm support cannot be looked up.</source>
        <translation>{name} 的 gfx 目标未知，因此无法查询其 ROCm 支持情况。</translation>
    </message>
    <message>
        <source>✓ supported{release}</source>
        <translation>✓ 支持{release}</translation>
    </message>
    <message>
        <source>! deprecated{release}</source>
        <translation>! 已弃用{release}</translation>
    </message>
    <message>
        <source>✓ listed{release}</source>
        <translation>✓ 已列出{release}</translation>
    </message>
    <message>
        <source>! runtime only</source>
        <translation>! 仅运行时</translation>
    </message>
    <message>
        <source>✗ not supported</source>
        <translation>✗ 不支持</translation>
    </message>
    <message>
        <source>? not readable</source>
        <translation>? 无法读取</translation>
    </message>
    <message>
        <source>? unknown</source>
        <translation>? 未知</translation>
    </message>
    <message>
        <source>✗ dropped after {release}</source>
        <translation>✗ {release} 之后不再支持</translation>
    </message>
    <message>
        <source>Source: {source}</source>
        <translation>来源：{source}</translation>
    </message>
    <message>
        <source>HSA_OVERRIDE_GFX_VERSION is a ROCm setting; NVIDIA cards do not use it.</source>
        <translation>HSA_OVERRIDE_GFX_VERSION 是 ROCm 的设置；NVIDIA 显卡不使用它。</translation>
    </message>
    <message>
        <source>The gfx target of this card is not known.</source>
        <translation>这块显卡的 gfx 目标未知。</translation>
    </message>
    <message>
        <source>{assignment}: PyTorch&apos;s official ROCm wheel has no code for {target}, so it runs as {pretends}.</source>
        <translation>{assignment}：PyTorch 官方 ROCm wheel 没有 {target} 的代码，因此会以 {pretends} 的身份运行。</translation>
    </message>
    <message>
        <source>none known</source>
        <translation>未知可用值</translation>
    </message>
    <message>
        <source>No HSA_OVERRIDE_GFX_VERSION value is known to make {target} work.</source>
        <translation>目前没有已知的 HSA_OVERRIDE_GFX_VERSION 值能让 {target} 工作。</translation>
    </message>
    <message>
        <source>✓ not needed</source>
        <translation>✓ 无需设置</translation>
    </message>
    <message>
        <source>{target} runs without HSA_OVERRIDE_GFX_VERSION.</source>
        <translation>{target} 无需 HSA_OVERRIDE_GFX_VERSION 即可运行。</translation>
    </message>
    <message>
        <source>the newest torch</source>
        <translation>最新版 torch</translation>
    </message>
    <message>
        <source>compute capability {cc}</source>
        <translation>计算能力 {cc}</translation>
    </message>
    <message>
        <source>Whether {which}&apos;s official wheel carries code for this card is not known.</source>
        <translation>尚不清楚 {which} 的官方 wheel 是否包含这块显卡的代码。</translation>
    </message>
    <message>
        <source>✓ native ({release})</source>
        <translation>✓ 原生（{release}）</translation>
    </message>
    <message>
        <source>✓ native</source>
        <translation>✓ 原生</translation>
    </message>
    <message>
        <source>{which}&apos;s official wheel carries native code for {target}.</source>
        <translation>{which} 的官方 wheel 包含 {target} 的原生代码。</translation>
    </message>
    <message>
        <source>✗ no native code</source>
        <translation>✗ 无原生代码</translation>
    </message>
    <message>
        <source>{which}&apos;s official wheel has no native code for {target}.</source>
        <translation>{which} 的官方 wheel 不包含 {target} 的原生代码。</translation>
    </message>
    <message>
        <source>The CUDA compute capability is NVIDIA&apos;s; AMD cards run ROCm and HIP.</source>
        <translation>CUDA 计算能力是 NVIDIA 的概念；AMD 显卡使用 ROCm 和 HIP。</translation>
    </message>
    <message>
        <source>The compute capability of this card is not known.</source>
        <translation>这块显卡的计算能力未知。</translation>
    </message>
    <message>
        <source>Compute capability {cc}</source>
        <translation>计算能力 {cc}</translation>
    </message>
    <message>
        <source> · dropped in CUDA {version}</source>
        <translation> · CUDA {version} 起不再支持</translation>
    </message>
    <message>
        <source>; CUDA {version} no longer supports it.</source>
        <translation>；CUDA {version} 已不再支持它。</translation>
    </message>
    <message>
        <source>Measured results come from imported reports. Import a report with benchmark results (gpuscope report --format json) to fill this row.</source>
        <translation>实测结果来自导入的报告。导入一份带有基准测试结果的报告（gpuscope report --format json）即可填充这一行。</translation>
    </message>
    <message>
        <source>The report from {source} has no {label} result for this card.</source>
        <translation>来自 {source} 的报告中没有这块显卡的 {label} 结果。</translation>
    </message>
    <message>
        <source>unsupported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>no reason given</source>
        <translation>未给出原因</translation>
    </message>
    <message>
        <source>Measured {value} ({label})</source>
        <translation>实测 {value}（{label}）</translation>
    </message>
    <message>
        <source>{percent}% of the {peak} {unit} {what} peak ({note})</source>
        <translation>为 {peak} {unit} {what} 峰值的 {percent}%（{note}）</translation>
    </message>
    <message>
        <source>No datasheet peak to compare it with.</source>
        <translation>没有可供比较的规格峰值。</translation>
    </message>
    <message>
        <source> on {device}</source>
        <translation>，设备 {device}</translation>
    </message>
    <message>
        <source>Run with {worker}{where}{when}</source>
        <translation>运行环境：{worker}{where}{when}</translation>
    </message>
    <message>
        <source>an unknown torch</source>
        <translation>未知版本的 torch</translation>
    </message>
    <message>
        <source>From {source}</source>
        <translation>来自 {source}</translation>
    </message>
    <message>
        <source>No launch price is known: type one.</source>
        <translation>未知首发价：请输入一个价格。</translation>
    </message>
    <message>
        <source>Launch price {price}</source>
        <translation>首发价 {price}</translation>
    </message>
    <message>
        <source>Launch price</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>Your price (launch price: {price})</source>
        <translation>你的价格（首发价：{price}）</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>No price: type one in the Price row.</source>
        <translation>没有价格：请在“价格”一行中输入。</translation>
    </message>
    <message>
        <source>{price} per {unit}</source>
        <translation>每 {unit} {price}</translation>
    </message>
    <message>
        <source>Memory on the card, as sold (a &quot;24 GB&quot; card holds 24 GiB).</source>
        <translation>显卡上的显存容量，按销售标称（“24 GB”的显卡有 24 GiB）。</translation>
    </message>
    <message>
        <source>Memory bandwidth</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <source>memory bandwidth</source>
        <translation>显存带宽</translation>
    </message>
    <message>
        <source>Theoretical memory bandwidth: what token generation of a large model is bound by.</source>
        <translation>理论显存带宽：大模型生成 token 的速度受它限制。</translation>
    </message>
    <message>
        <source>Peak FP32 vector rate (RDNA3 figures count dual-issue).</source>
        <translation>FP32 向量峰值算力（RDNA3 的数据计入了双发射）。</translation>
    </message>
    <message>
        <source>FP16 (datasheet)</source>
        <translation>FP16（规格）</translation>
    </message>
    <message>
        <source>The dense FP16 matrix rate as the datasheet quotes it. * GeForce: the FP16-accumulate rate, twice what PyTorch gets.</source>
        <translation>规格中标称的 FP16 稠密矩阵算力。* GeForce：FP16 累加的算力，是 PyTorch 实际可得的两倍。</translation>
    </message>
    <message>
        <source>FP16 for PyTorch</source>
        <translation>PyTorch 的 FP16</translation>
    </message>
    <message>
        <source>FP16 inputs with FP32 accumulate: the peak a PyTorch fp16 matmul runs against.</source>
        <translation>FP16 输入、FP32 累加：PyTorch fp16 矩阵乘法所对照的峰值。</translation>
    </message>
    <message>
        <source>Dense BF16 matrix rate (FP32 accumulate).</source>
        <translation>BF16 稠密矩阵算力（FP32 累加）。</translation>
    </message>
    <message>
        <source>Dense INT8 matrix rate, in tera-operations per second.</source>
        <translation>INT8 稠密矩阵算力，单位为每秒万亿次运算。</translation>
    </message>
    <message>
        <source>Board power (TDP)</source>
        <translation>整板功耗（TDP）</translation>
    </message>
    <message>
        <source>board power</source>
        <translation>整板功耗</translation>
    </message>
    <message>
        <source>Total board power: what the power supply and cooling must handle. Lower is highlighted.</source>
        <translation>整板总功耗：电源和散热需要承受的负荷。较低者高亮。</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>The GPU architecture and, for AMD, the gfx target ROCm builds code for.</source>
        <translation>GPU 架构，以及 AMD 显卡的 gfx 目标（ROCm 为其编译代码）。</translation>
    </message>
    <message>
        <source>ROCm on Linux</source>
        <translation>Linux 上的 ROCm</translation>
    </message>
    <message>
        <source>Whether AMD&apos;s official support list of the newest ROCm release in gpuscope&apos;s table names this card on Linux.</source>
        <translation>gpuscope 表中最新 ROCm 版本的 AMD 官方支持列表是否列出了这块显卡（Linux）。</translation>
    </message>
    <message>
        <source>ROCm on Windows</source>
        <translation>Windows 上的 ROCm</translation>
    </message>
    <message>
        <source>The same for ROCm (HIP SDK) on Windows.</source>
        <translation>同上，针对 Windows 上的 ROCm（HIP SDK）。</translation>
    </message>
    <message>
        <source>HSA override</source>
        <translation>HSA 覆盖</translation>
    </message>
    <message>
        <source>Whether PyTorch needs HSA_OVERRIDE_GFX_VERSION to run on this card (its official wheel has no code for it).</source>
        <translation>PyTorch 在这块显卡上运行是否需要 HSA_OVERRIDE_GFX_VERSION（其官方 wheel 没有它的代码）。</translation>
    </message>
    <message>
        <source>PyTorch wheel</source>
        <translation>PyTorch wheel</translation>
    </message>
    <message>
        <source>Whether the newest official PyTorch wheel (ROCm or CUDA build) carries native code for this card.</source>
        <translation>最新的 PyTorch 官方 wheel（ROCm 或 CUDA 版）是否包含这块显卡的原生代码。</translation>
    </message>
    <message>
        <source>CUDA compute capability</source>
        <translation>CUDA 计算能力</translation>
    </message>
    <message>
        <source>NVIDIA&apos;s compute capability: which CUDA releases and PyTorch builds support the card.</source>
        <translation>NVIDIA 的计算能力：决定哪些 CUDA 版本和 PyTorch 构建支持这块显卡。</translation>
    </message>
    <message>
        <source>FP16 matmul</source>
        <translation>FP16 矩阵乘法</translation>
    </message>
    <message>
        <source>FP32 matmul</source>
        <translation>FP32 矩阵乘法</translation>
    </message>
    <message>
        <source>Memory copy</source>
        <translation>显存复制</translation>
    </message>
    <message>
        <source>Price (USD)</source>
        <translation>价格（美元）</translation>
    </message>
    <message>
        <source>What the card costs: its launch price until you type another. Prices drive the rows below at once.</source>
        <translation>显卡的价格：在你输入其他价格之前使用首发价。价格会立即影响下面各行。</translation>
    </message>
    <message>
        <source>$ per FP16 TFLOPS</source>
        <translation>美元 / FP16 TFLOPS</translation>
    </message>
    <message>
        <source>Price per datasheet FP16 TFLOPS (GeForce: the FP16-accumulate rate).</source>
        <translation>每 TFLOPS 规格 FP16 算力的价格（GeForce：FP16 累加算力）。</translation>
    </message>
    <message>
        <source>$ per PyTorch FP16 TFLOPS</source>
        <translation>美元 / PyTorch FP16 TFLOPS</translation>
    </message>
    <message>
        <source>FP16 with FP32 accumulate</source>
        <translation>FP16 输入、FP32 累加</translation>
    </message>
    <message>
        <source>Price per FP16 TFLOPS at FP32 accumulate, what PyTorch runs at.</source>
        <translation>每 TFLOPS FP32 累加 FP16 算力的价格，即 PyTorch 实际运行的算力。</translation>
    </message>
    <message>
        <source>$ per GB of VRAM</source>
        <translation>美元 / GB 显存</translation>
    </message>
    <message>
        <source>Price per GB of VRAM: what decides which models fit.</source>
        <translation>每 GB 显存的价格：显存决定能装下哪些模型。</translation>
    </message>
    <message>
        <source>Datasheet</source>
        <translation>规格</translation>
    </message>
    <message>
        <source>Ecosystem</source>
        <translation>生态</translation>
    </message>
    <message>
        <source>Measured (imported reports)</source>
        <translation>实测（导入的报告）</translation>
    </message>
    <message>
        <source>Price (USD, editable)</source>
        <translation>价格（美元，可编辑）</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Loading the card list…</source>
        <translation>正在加载显卡列表…</translation>
    </message>
    <message>
        <source>Type part of a name (&quot;7900&quot;, &quot;4090&quot;, &quot;MI300&quot;) and press Enter or Add.</source>
        <translation>输入名称的一部分（“7900”“4090”“MI300”），然后按回车或“添加”。</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Import report…</source>
        <translation>导入报告…</translation>
    </message>
    <message>
        <source>Add the GPUs and benchmark results of a report someone shared (the JSON of &apos;gpuscope report --format json&apos;).</source>
        <translation>添加他人分享的报告中的 GPU 和基准测试结果（&apos;gpuscope report --format json&apos; 生成的 JSON）。</translation>
    </message>
    <message>
        <source>Remove card</source>
        <translation>移除显卡</translation>
    </message>
    <message>
        <source>Remove the selected cards (click a column&apos;s heading to select it; Delete).</source>
        <translation>移除所选的显卡（点击列标题选中该列；Delete 键）。</translation>
    </message>
    <message>
        <source>Launch prices</source>
        <translation>首发价</translation>
    </message>
    <message>
        <source>Put every price back to the card&apos;s launch price.</source>
        <translation>将所有价格恢复为显卡的首发价。</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清空</translation>
    </message>
    <message>
        <source>No cards yet. Pick one above and press Add, or import a report someone shared (gpuscope report --format json).</source>
        <translation>还没有显卡。在上方选择一块并点“添加”，或导入他人分享的报告（gpuscope report --format json）。</translation>
    </message>
    <message>
        <source>Best value of each row highlighted. — : not known (hover for why). * GeForce datasheets quote FP16 with FP16 accumulate.</source>
        <translation>每行的最佳值已高亮。— ：未知（悬停查看原因）。* GeForce 规格中的 FP16 为 FP16 累加。</translation>
    </message>
    <message>
        <source>Could not import the report: {reason}</source>
        <translation>无法导入报告：{reason}</translation>
    </message>
    <message>
        <source>&quot;{name}&quot; is not in gpuscope&apos;s knowledge base; pick a name from the list.</source>
        <translation>“{name}”不在 gpuscope 的知识库中；请从列表中选择名称。</translation>
    </message>
    <message>
        <source>Type or pick a card first.</source>
        <translation>请先输入或选择一块显卡。</translation>
    </message>
    <message>
        <source>At most {count} cards side by side: remove one first.</source>
        <translation>最多并排比较 {count} 块显卡：请先移除一块。</translation>
    </message>
    <message>
        <source>Reading {path}…</source>
        <translation>正在读取 {path}…</translation>
    </message>
    <message>
        <source>Select a card first: click its column&apos;s heading.</source>
        <translation>请先选择一块显卡：点击它的列标题。</translation>
    </message>
    <message>
        <source>Pick cards from gpuscope&apos;s knowledge base, or import a report, to see them side by side.</source>
        <translation>从 gpuscope 的知识库中选择显卡，或导入一份报告，即可并排比较。</translation>
    </message>
    <message>
        <source>{count} cards</source>
        <translation>{count} 块显卡</translation>
    </message>
    <message>
        <source>{count} card</source>
        <translation>{count} 块显卡</translation>
    </message>
    <message>
        <source>, {count} from imported reports</source>
        <translation>，其中 {count} 块来自导入的报告</translation>
    </message>
    <message>
        <source>{cards}. Prices in USD: launch prices until you type yours.</source>
        <translation>{cards}。价格单位为美元：在你输入自己的价格之前使用首发价。</translation>
    </message>
    <message>
        <source>Best of the cards shown (higher is better)</source>
        <translation>所列显卡中最佳（越高越好）</translation>
    </message>
    <message>
        <source>Best of the cards shown (lower is better)</source>
        <translation>所列显卡中最佳（越低越好）</translation>
    </message>
    <message>
        <source>no price</source>
        <translation>无价格</translation>
    </message>
    <message>
        <source>Type your price; 0 means no price.</source>
        <translation>输入你的价格；0 表示没有价格。</translation>
    </message>
    <message>
        <source>The report was {how}.</source>
        <translation>该报告：{how}。</translation>
    </message>
    <message>
        <source>Not in gpuscope&apos;s spec table: only what the report says is shown.</source>
        <translation>不在 gpuscope 的规格表中：只显示报告中的内容。</translation>
    </message>
    <message>
        <source>{count} measured results</source>
        <translation>{count} 项实测结果</translation>
    </message>
    <message>
        <source>{count} measured result</source>
        <translation>{count} 项实测结果</translation>
    </message>
    <message>
        <source>Right-click to remove.</source>
        <translation>右键单击可移除。</translation>
    </message>
    <message>
        <source>Remove {name}</source>
        <translation>移除 {name}</translation>
    </message>
    <message>
        <source>For the selected cards (click a heading to pick others).</source>
        <translation>针对所选显卡（点击列标题选择其他显卡）。</translation>
    </message>
    <message>
        <source>For every card in the table; select columns to narrow it.</source>
        <translation>针对表中的所有显卡；选择列可缩小范围。</translation>
    </message>
    <message>
        <source>Import a gpuscope report</source>
        <translation>导入 gpuscope 报告</translation>
    </message>
    <message>
        <source>Could not import: {reason}</source>
        <translation>无法导入：{reason}</translation>
    </message>
    <message>
        <source>{source} is a report of a machine without a GPU: no card to add.</source>
        <translation>{source} 是一台没有 GPU 的机器的报告：没有可添加的显卡。</translation>
    </message>
    <message>
        <source>{source}: adding its {count} card(s) would make more than {most}; remove some first.</source>
        <translation>{source}：添加其中的 {count} 块显卡会超过 {most} 块；请先移除一些。</translation>
    </message>
    <message>
        <source>Imported {count} cards</source>
        <translation>已导入 {count} 块显卡</translation>
    </message>
    <message>
        <source>Imported {count} card</source>
        <translation>已导入 {count} 块显卡</translation>
    </message>
    <message>
        <source>{cards} from {source}, {results}</source>
        <translation>{cards}，来自 {source}，{results}</translation>
    </message>
    <message>
        <source> (the report was {how})</source>
        <translation>（该报告：{how}）</translation>
    </message>
    <message>
        <source>.</source>
        <translation>。</translation>
    </message>
    <message>
        <source>From {source}: {notes}.</source>
        <translation>来自 {source}：{notes}。</translation>
    </message>
    <message>
        <source>Search {count} cards…</source>
        <translation>搜索 {count} 块显卡…</translation>
    </message>
    <message>
        <source>The knowledge base could not be loaded: {reason}</source>
        <translation>无法加载知识库：{reason}</translation>
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
        <source>Copy the commands to the clipboard</source>
        <translation>将这些命令复制到剪贴板</translation>
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
        <source>This snapshot recorded no Python interpreter (taken with --no-frameworks, or by an older gpuscope), so the frameworks of that machine are not known</source>
        <translation>此快照未记录任何 Python 解释器（使用 --no-frameworks 拍摄，或由较旧版本的 gpuscope 拍摄），因此无法得知该机器上的框架</translation>
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
        <source>Not known: the snapshot holds no framework answer.</source>
        <translation>未知：该快照不含框架的检测结果。</translation>
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
    <name>MainWindow</name>
    <message>
        <source>Overview</source>
        <translation>总览</translation>
    </message>
    <message>
        <source>Stack</source>
        <translation>软件栈</translation>
    </message>
    <message>
        <source>Frameworks</source>
        <translation>框架</translation>
    </message>
    <message>
        <source>Telemetry</source>
        <translation>遥测</translation>
    </message>
    <message>
        <source>Benchmarks</source>
        <translation>基准测试</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source> — coming in a later release</source>
        <translation> — 将在以后的版本中提供</translation>
    </message>
    <message>
        <source>Back to this machine</source>
        <translation>返回本机</translation>
    </message>
    <message>
        <source>Automatic (from the system)</source>
        <translation>自动（跟随系统）</translation>
    </message>
    <message>
        <source>Telemetry recordings (*.sqlite *.sqlite3 *.db);;All files (*)</source>
        <translation>遥测录制文件 (*.sqlite *.sqlite3 *.db);;所有文件 (*)</translation>
    </message>
    <message>
        <source>pasted outputs</source>
        <translation>粘贴的输出</translation>
    </message>
    <message>
        <source>Imported from {sources} — pasted outputs, not this machine</source>
        <translation>导入自 {sources} — 粘贴的输出，不是本机</translation>
    </message>
    <message>
        <source>a snapshot</source>
        <translation>一个快照</translation>
    </message>
    <message>
        <source>captured {when} by gpuscope {version}</source>
        <translation>由 gpuscope {version} 于 {when} 采集</translation>
    </message>
    <message>
        <source>captured {when} (gpuscope version not recorded)</source>
        <translation>于 {when} 采集（未记录 gpuscope 版本）</translation>
    </message>
    <message>
        <source>captured by gpuscope {version} (date not recorded)</source>
        <translation>由 gpuscope {version} 采集（未记录日期）</translation>
    </message>
    <message>
        <source>capture date and gpuscope version not recorded</source>
        <translation>未记录采集日期和 gpuscope 版本</translation>
    </message>
    <message>
        <source>Replay of {name} — {captured}; nothing here is live</source>
        <translation>{name} 的回放 — {captured}；此处没有任何实时数据</translation>
    </message>
    <message>
        <source>Not built yet: nothing on this page is working in this release.</source>
        <translation>尚未实现：此版本中这一页的功能都还不能使用。</translation>
    </message>
    <message>
        <source>&amp;Import outputs…</source>
        <translation>导入输出(&amp;I)…</translation>
    </message>
    <message>
        <source>Import outputs…</source>
        <translation>导入输出…</translation>
    </message>
    <message>
        <source>Diagnose another machine from its rocminfo, rocm-smi, amd-smi, nvidia-smi, collect_env, dmesg or lspci output</source>
        <translation>根据另一台机器的 rocminfo、rocm-smi、amd-smi、nvidia-smi、collect_env、dmesg 或 lspci 输出诊断该机器</translation>
    </message>
    <message>
        <source>Leave the imported outputs and show this machine again</source>
        <translation>离开导入的输出，重新显示本机</translation>
    </message>
    <message>
        <source>Machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <source>Language: {language}. It applies when gpuscope starts again.</source>
        <translation>语言：{language}。将在 gpuscope 下次启动时生效。</translation>
    </message>
    <message>
        <source>Open a telemetry recording</source>
        <translation>打开遥测录制文件</translation>
    </message>
    <message>
        <source>Settings file</source>
        <translation>设置文件</translation>
    </message>
    <message>
        <source>Replay of {source}: values as captured, repeated at {rate} Hz — not live</source>
        <translation>{source} 的回放：按采集时的数值以 {rate} Hz 重复 — 非实时</translation>
    </message>
    <message>
        <source>Live telemetry could not start: {message}</source>
        <translation>实时遥测无法启动：{message}</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>Open &amp;recording…</source>
        <translation>打开录制文件(&amp;R)…</translation>
    </message>
    <message>
        <source>Chart a telemetry recording (made by &apos;gpuscope record&apos;) on the Telemetry page</source>
        <translation>在“遥测”页面上绘制遥测录制文件（由 &apos;gpuscope record&apos; 生成）</translation>
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
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>Probe this machine again</source>
        <translation>重新探测本机</translation>
    </message>
    <message>
        <source>&amp;Full screen</source>
        <translation>全屏(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;About gpuscope</source>
        <translation>关于 gpuscope(&amp;A)</translation>
    </message>
    <message>
        <source>Opened recording {name}</source>
        <translation>已打开录制文件 {name}</translation>
    </message>
    <message>
        <source>Could not open recording {name}: {reason}</source>
        <translation>无法打开录制文件 {name}：{reason}</translation>
    </message>
    <message>
        <source> (and {count} more in the log)</source>
        <translation>（日志中还有 {count} 条）</translation>
    </message>
    <message>
        <source>Settings: {problem}{more}</source>
        <translation>设置：{problem}{more}</translation>
    </message>
    <message>
        <source> — imported outputs, not this machine</source>
        <translation> — 导入的输出，不是本机</translation>
    </message>
    <message>
        <source>Showing {count} imported outputs ({formats})</source>
        <translation>正在显示 {count} 份导入的输出（{formats}）</translation>
    </message>
    <message>
        <source>Showing {count} imported output ({formats})</source>
        <translation>正在显示 {count} 份导入的输出（{formats}）</translation>
    </message>
    <message>
        <source>; ignored {names}: not a format gpuscope recognises</source>
        <translation>；已忽略 {names}：gpuscope 无法识别其格式</translation>
    </message>
    <message>
        <source>{done} of {total} probes finished</source>
        <translation>已完成 {done} / {total} 项探测</translation>
    </message>
    <message>
        <source> ({count} timed out)</source>
        <translation>（{count} 项超时）</translation>
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
        <source>gpuscope benchmark runs (*.json);;All files (*)</source>
        <translation>gpuscope 基准测试运行 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>host name</source>
        <translation>主机名</translation>
    </message>
    <message>
        <source>user name</source>
        <translation>用户名</translation>
    </message>
    <message>
        <source>home path</source>
        <translation>主目录路径</translation>
    </message>
    <message>
        <source>serial number</source>
        <translation>序列号</translation>
    </message>
    <message>
        <source>MAC address</source>
        <translation>MAC 地址</translation>
    </message>
    <message>
        <source>IP address</source>
        <translation>IP 地址</translation>
    </message>
    <message>
        <source>Report</source>
        <translation>报告</translation>
    </message>
    <message>
        <source>Export PNG…</source>
        <translation>导出 PNG…</translation>
    </message>
    <message>
        <source>A 1200-pixel-wide picture for a forum post or a chat</source>
        <translation>1200 像素宽的图片，适合论坛帖子或聊天</translation>
    </message>
    <message>
        <source>Export HTML…</source>
        <translation>导出 HTML…</translation>
    </message>
    <message>
        <source>One self-contained web page: nothing is loaded from anywhere</source>
        <translation>一个独立的网页：不从任何地方加载内容</translation>
    </message>
    <message>
        <source>Export Markdown…</source>
        <translation>导出 Markdown…</translation>
    </message>
    <message>
        <source>For GitHub issues and forums; the long parts fold away</source>
        <translation>适用于 GitHub issue 和论坛；较长的部分可折叠</translation>
    </message>
    <message>
        <source>Export JSON…</source>
        <translation>导出 JSON…</translation>
    </message>
    <message>
        <source>The diagnosis and benchmark results, for gpuscope&apos;s Compare page</source>
        <translation>诊断和基准测试结果，供 gpuscope 的“比较”页面使用</translation>
    </message>
    <message>
        <source>Copy image</source>
        <translation>复制图片</translation>
    </message>
    <message>
        <source>Put the report picture on the clipboard, to paste into a post</source>
        <translation>将报告图片放到剪贴板，以便粘贴到帖子中</translation>
    </message>
    <message>
        <source>Copy Markdown</source>
        <translation>复制 Markdown</translation>
    </message>
    <message>
        <source>Put the Markdown report on the clipboard, to paste into a GitHub issue</source>
        <translation>将 Markdown 报告放到剪贴板，以便粘贴到 GitHub issue 中</translation>
    </message>
    <message>
        <source>Add benchmark run…</source>
        <translation>添加基准测试运行…</translation>
    </message>
    <message>
        <source>Show the results of a benchmark run saved with &apos;gpuscope bench -o FILE&apos;</source>
        <translation>显示用 &apos;gpuscope bench -o FILE&apos; 保存的基准测试运行结果</translation>
    </message>
    <message>
        <source>Redact personal details</source>
        <translation>隐去个人信息</translation>
    </message>
    <message>
        <source>Host and user names, home paths, serial numbers, UUIDs, MAC and IP addresses become placeholders such as &lt;host-1&gt; in every export</source>
        <translation>在所有导出中，主机名、用户名、主目录路径、序列号、UUID、MAC 和 IP 地址都会替换为 &lt;host-1&gt; 这样的占位符</translation>
    </message>
    <message>
        <source>What is removed</source>
        <translation>将被移除的内容</translation>
    </message>
    <message>
        <source>What</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Found</source>
        <translation>发现的值</translation>
    </message>
    <message>
        <source>Becomes</source>
        <translation>替换为</translation>
    </message>
    <message>
        <source>Times</source>
        <translation>次数</translation>
    </message>
    <message>
        <source>Making the report…</source>
        <translation>正在生成报告…</translation>
    </message>
    <message>
        <source>Could not read the benchmark run: {0}</source>
        <translation>无法读取基准测试运行：{0}</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <source>Web page (*.html)</source>
        <translation>网页 (*.html)</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>JSON report (*.json)</source>
        <translation>JSON 报告 (*.json)</translation>
    </message>
    <message>
        <source>Export the report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>Add a benchmark run</source>
        <translation>添加基准测试运行</translation>
    </message>
    <message>
        <source>The report picture is on the clipboard.</source>
        <translation>报告图片已复制到剪贴板。</translation>
    </message>
    <message>
        <source>The Markdown report is on the clipboard.</source>
        <translation>Markdown 报告已复制到剪贴板。</translation>
    </message>
    <message>
        <source>Writing {0}…</source>
        <translation>正在写入 {0}…</translation>
    </message>
    <message>
        <source>The report could not be made: {0}</source>
        <translation>无法生成报告：{0}</translation>
    </message>
    <message>
        <source>Wrote {0}</source>
        <translation>已写入 {0}</translation>
    </message>
    <message>
        <source>Could not write {0}: {1}</source>
        <translation>无法写入 {0}：{1}</translation>
    </message>
    <message>
        <source>Added {0} benchmark run(s).</source>
        <translation>已添加 {0} 次基准测试运行。</translation>
    </message>
    <message>
        <source>What is removed ({0})</source>
        <translation>将被移除的内容（{0}）</translation>
    </message>
    <message>
        <source>Personal details will be replaced by placeholders.</source>
        <translation>个人信息将被替换为占位符。</translation>
    </message>
    <message>
        <source>Nothing personal was found to remove.</source>
        <translation>未发现需要移除的个人信息。</translation>
    </message>
    <message>
        <source>{0} value(s) are replaced by placeholders in every export.</source>
        <translation>在所有导出中，有 {0} 个值被替换为占位符。</translation>
    </message>
    <message>
        <source>Not redacted: the exports may contain your host and user names, home paths, serial numbers, UUIDs, MAC and IP addresses.</source>
        <translation>未隐去：导出内容可能包含你的主机名、用户名、主目录路径、序列号、UUID、MAC 和 IP 地址。</translation>
    </message>
    <message>
        <source>This machine, read live.</source>
        <translation>本机，实时读取。</translation>
    </message>
    <message>
        <source>{0} benchmark run(s).</source>
        <translation>{0} 次基准测试运行。</translation>
    </message>
    <message>
        <source>No benchmark results (Add benchmark run…).</source>
        <translation>没有基准测试结果（添加基准测试运行…）。</translation>
    </message>
    <message>
        <source>No telemetry yet.</source>
        <translation>尚无遥测数据。</translation>
    </message>
    <message>
        <source>REPLAYED SNAPSHOT — not a live reading</source>
        <translation>回放的快照 — 不是实时读数</translation>
    </message>
    <message>
        <source>captured {when} by gpuscope {version}</source>
        <translation>由 gpuscope {version} 于 {when} 采集</translation>
    </message>
    <message>
        <source>captured {when}</source>
        <translation>于 {when} 采集</translation>
    </message>
    <message>
        <source>capture date not recorded</source>
        <translation>未记录采集日期</translation>
    </message>
    <message>
        <source>Replay of the snapshot {source}, {captured}: values as they were then, not the machine&apos;s state now.</source>
        <translation>快照 {source} 的回放，{captured}：数值是当时的情况，不是这台机器现在的状态。</translation>
    </message>
    <message>
        <source>(unnamed)</source>
        <translation>（未命名）</translation>
    </message>
    <message>
        <source>IMPORTED OUTPUTS — not probed by gpuscope</source>
        <translation>导入的输出 — 并非由 gpuscope 探测</translation>
    </message>
    <message>
        <source>Diagnosed from pasted tool outputs ({source}): gpuscope did not probe this machine, and what the outputs do not show is unknown.</source>
        <translation>根据粘贴的工具输出（{source}）诊断：gpuscope 没有探测这台机器，输出中没有的信息均为未知。</translation>
    </message>
    <message>
        <source>pasted text</source>
        <translation>粘贴的文本</translation>
    </message>
    <message>
        <source>ORIGIN UNKNOWN — not a live reading</source>
        <translation>来源未知 — 不是实时读数</translation>
    </message>
    <message>
        <source>The report does not say where its data came from.</source>
        <translation>报告没有说明其数据的来源。</translation>
    </message>
    <message>
        <source>{title}: {sentence}</source>
        <translation>{title}：{sentence}</translation>
    </message>
    <message>
        <source>No GPU found.</source>
        <translation>未找到 GPU。</translation>
    </message>
    <message>
        <source>The doctor found nothing wrong.</source>
        <translation>诊断未发现任何问题。</translation>
    </message>
    <message>
        <source>The doctor found {errors} error(s) and {warnings} warning(s).</source>
        <translation>诊断发现 {errors} 个错误和 {warnings} 个警告。</translation>
    </message>
    <message>
        <source>The doctor found {errors} error(s).</source>
        <translation>诊断发现 {errors} 个错误。</translation>
    </message>
    <message>
        <source>The doctor found {warnings} warning(s).</source>
        <translation>诊断发现 {warnings} 个警告。</translation>
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
        <source>no: the framework has no kernels for {target}</source>
        <translation>否：该框架没有适用于 {target} 的内核</translation>
    </message>
    <message>
        <source>no: the NVIDIA driver is too old for its CUDA {cuda}</source>
        <translation>否：NVIDIA 驱动太旧，无法运行它的 CUDA {cuda}</translation>
    </message>
    <message>
        <source>no: {reason}</source>
        <translation>否：{reason}</translation>
    </message>
    <message>
        <source>PyTorch {version} in {python}: {verdict}</source>
        <translation>PyTorch {version}（{python}）：{verdict}</translation>
    </message>
    <message>
        <source>PyTorch {version}: {verdict}</source>
        <translation>PyTorch {version}：{verdict}</translation>
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
        <source>it sees the GPU, not yet confirmed: the smoke test {result}</source>
        <translation>能看到 GPU，尚未确认：冒烟测试结果：{result}</translation>
    </message>
    <message>
        <source>it sees the GPU as device {device}, not yet confirmed: the smoke test {result}</source>
        <translation>能看到 GPU（设备 {device}），尚未确认：冒烟测试结果：{result}</translation>
    </message>
    <message>
        <source>no: PyTorch is not installed in {python}</source>
        <translation>否：{python} 中没有安装 PyTorch</translation>
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
    <name>WhatFitsPanel</name>
    <message>
        <source>the VRAM of this card is not known</source>
        <translation>这块显卡的显存容量未知</translation>
    </message>
    <message>
        <source>{count}k tokens</source>
        <translation>{count}k token</translation>
    </message>
    <message>
        <source>{count} tokens</source>
        <translation>{count} token</translation>
    </message>
    <message>
        <source>Does not fit in the {card}&apos;s {vram}: {short} short.</source>
        <translation>{card} 的 {vram} 装不下：还差 {short}。</translation>
    </message>
    <message>
        <source>Fits in {vram}, but only {left} is left (under {share}): the desktop or a longer context can tip it over.</source>
        <translation>能装进 {vram}，但只剩 {left}（不到 {share}）：桌面或更长的上下文就可能让它装不下。</translation>
    </message>
    <message>
        <source>Fits in {vram} with {left} to spare.</source>
        <translation>能装进 {vram}，还剩 {left}。</translation>
    </message>
    <message>
        <source>{model} at {precision}, {tokens} tokens of context</source>
        <translation>{model}，{precision}，{tokens} token 上下文</translation>
    </message>
    <message>
        <source>weights {size} ({billions} B parameters x {bits} bits)</source>
        <translation>权重 {size}（{billions} B 参数 x {bits} 位）</translation>
    </message>
    <message>
        <source>KV cache {size} (fp16 cache, batch {batch})</source>
        <translation>KV 缓存 {size}（fp16 缓存，批大小 {batch}）</translation>
    </message>
    <message>
        <source>runtime allowance {size}</source>
        <translation>运行时预留 {size}</translation>
    </message>
    <message>
        <source>Shape: {source}</source>
        <translation>模型结构：{source}</translation>
    </message>
    <message>
        <source>What fits</source>
        <translation>能装下哪些模型</translation>
    </message>
    <message>
        <source>Context:</source>
        <translation>上下文：</translation>
    </message>
    <message>
        <source>The KV cache grows with the context: K and V of every layer for every token, in fp16.</source>
        <translation>KV 缓存随上下文增长：每个 token 在每一层都有 K 和 V，按 fp16 计。</translation>
    </message>
    <message>
        <source>{fits} fits   {tight} tight (under {share} of the VRAM left)   {no} does not fit.  GB: what the model needs: weights + KV cache + {overhead} GB runtime allowance, one GPU, batch 1.</source>
        <translation>{fits} 能装下   {tight} 勉强（剩余显存不到 {share}）   {no} 装不下。  GB：模型所需显存 = 权重 + KV 缓存 + {overhead} GB 运行时预留，单 GPU，批大小 1。</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>VRAM unknown</source>
        <translation>显存未知</translation>
    </message>
    <message>
        <source>{precision}: {bits} bits per weight ({source})</source>
        <translation>{precision}：每个权重 {bits} 位（{source}）</translation>
    </message>
    <message>
        <source>{model}: {billions} B parameters, {layers} layers, {heads} KV heads (config: {source})</source>
        <translation>{model}：{billions} B 参数，{layers} 层，{heads} 个 KV 头（配置：{source}）</translation>
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
    <message>
        <source>FP32 matmul</source>
        <translation>FP32 矩阵乘法</translation>
    </message>
    <message>
        <source>TF32 matmul (NVIDIA)</source>
        <translation>TF32 矩阵乘法（NVIDIA）</translation>
    </message>
    <message>
        <source>FP16 matmul</source>
        <translation>FP16 矩阵乘法</translation>
    </message>
    <message>
        <source>BF16 matmul</source>
        <translation>BF16 矩阵乘法</translation>
    </message>
    <message>
        <source>INT8 matmul (torch._int_mm)</source>
        <translation>INT8 矩阵乘法（torch._int_mm）</translation>
    </message>
    <message>
        <source>FP8 matmul (torch._scaled_mm)</source>
        <translation>FP8 矩阵乘法（torch._scaled_mm）</translation>
    </message>
    <message>
        <source>memory copy</source>
        <translation>显存复制</translation>
    </message>
    <message>
        <source>memory triad</source>
        <translation>显存 triad</translation>
    </message>
    <message>
        <source>host to device, pinned</source>
        <translation>主机到设备，锁页内存</translation>
    </message>
    <message>
        <source>device to host, pinned</source>
        <translation>设备到主机，锁页内存</translation>
    </message>
    <message>
        <source>host to device, pageable</source>
        <translation>主机到设备，可分页内存</translation>
    </message>
    <message>
        <source>device to host, pageable</source>
        <translation>设备到主机，可分页内存</translation>
    </message>
    <message>
        <source>kernel launch round trip</source>
        <translation>内核启动往返</translation>
    </message>
    <message>
        <source>synchronise, nothing queued</source>
        <translation>同步（队列为空）</translation>
    </message>
    <message>
        <source>attention, flash backend</source>
        <translation>注意力，flash 后端</translation>
    </message>
    <message>
        <source>attention, memory-efficient backend</source>
        <translation>注意力，memory-efficient 后端</translation>
    </message>
    <message>
        <source>attention, math backend</source>
        <translation>注意力，math 后端</translation>
    </message>
    <message>
        <source>normal</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>low</source>
        <translation>偏低</translation>
    </message>
    <message>
        <source>above published</source>
        <translation>高于公开数据</translation>
    </message>
    <message>
        <source>no reference</source>
        <translation>无参考</translation>
    </message>
    <message>
        <source>no datasheet</source>
        <translation>无规格数据</translation>
    </message>
    <message>
        <source>unsupported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>better</source>
        <translation>更好</translation>
    </message>
    <message>
        <source>worse</source>
        <translation>更差</translation>
    </message>
    <message>
        <source>within spread</source>
        <translation>在波动范围内</translation>
    </message>
    <message>
        <source>not comparable</source>
        <translation>无法比较</translation>
    </message>
    <message>
        <source>only in A</source>
        <translation>仅 A 有</translation>
    </message>
    <message>
        <source>only in B</source>
        <translation>仅 B 有</translation>
    </message>
</context>
</TS>
