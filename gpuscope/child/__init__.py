"""Code that runs in the user's Python interpreter, not in gpuscope's process.

gpuscope runs its worker folders (`bench/worker`, `probes/framework_probe`) by path with the
interpreter the user picks: `python <folder> ARGS`. There the gpuscope package is not imported
(its `__init__` modules would pull in the rest of gpuscope), so everything these folders and this
one hold uses the standard library only (torch and the frameworks come in through
`importlib.import_module`) and keeps to Python 3.9 syntax. `launch` sets the folders up; `jsonlines`
is the one channel back to gpuscope; `lifetime` makes a worker, and whatever it starts, die with
gpuscope (its shim is also what gpuscope runs any child through on Linux).
"""
