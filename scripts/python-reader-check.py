#!/usr/bin/env python3
"""Differential check of the inline-Python reader against CPython's own parser.

    python3 scripts/python-reader-check.py [SHELLGATE_BINARY] [AGENT_LOG_DIR]

Collects the inline Python of every agent-log command (`python3 -c CODE`, quoted
`python3 - <<'EOF'` heredocs), adds mutants (each of 300 snippets with four known-dangerous
statements inserted at random lines: calls, rebinding, attribute stores, dunders, `def`, `!cmd`…),
asks the gate about `python3 -c SNIPPET` in a project, and checks every Approved snippet with
`ast`: its only calls are the listed builtins written as bare names, with no `key=`/`file=`/`**`,
nothing is defined, deleted or stored into an attribute or item, no listed builtin is rebound, and
no other dunder name appears. Prints how many were accepted and lists any that fail the check
(there must be none). Keep ALLOWED in step with `[interpreter.inline] calls` in the default policy.
"""
import json, ast, re, shlex, subprocess, sys, glob, random
B=sys.argv[1] if len(sys.argv)>1 else 'target/release/shellgate'
LOGS=sys.argv[2] if len(sys.argv)>2 else '../shared/agent-logs'
ALLOWED=set("print len str repr ascii int float complex bool bytes list tuple dict set frozenset range enumerate zip reversed sorted min max sum abs round divmod pow any all isinstance issubclass hasattr getattr callable dir hex oct bin ord chr format hash id next slice".split())
def codes(cmd):
    out=[]
    for m in re.finditer(r"python[0-9.]*\s+-c\s+", cmd):
        rest=cmd[m.end():]
        try:
            lex=shlex.shlex(rest, posix=True); lex.whitespace_split=True
            out.append(next(iter(lex)))
        except Exception: pass
    for m in re.finditer(r"python[0-9.]*\s+-\s*<<-?\s*'(\w+)'\n", cmd):
        tag=m.group(1); body=cmd[m.end():]
        end=body.find('\n'+tag)
        if end>=0: out.append(body[:end])
    return out
snips=set()
for f in glob.glob(LOGS+'/*.jsonl'):
    for l in open(f):
        for c in codes(json.loads(l)['command']): snips.add(c)
base=list(snips)
random.seed(7)
evil=["import os; os.system('id')","open('/etc/passwd').read()","__import__('os')","print = exit","x.y = 1","d['a'] = 1","exec('1')","eval('1')","lambda: 0","[print][0](1)","getattr(os,'system')('id')","sorted([1], key=abs)","print(1, file=f)","print(**k)","for a.b in c: pass","breakpoint()","vars()['x']=1","globals()","import antigravity","(yield)","del x","class A: pass","def f(): pass","@d\ndef f(): pass","with open('x') as f: pass","f'{os.system(1)}'","!ls","\\u0070rint(1)","print(open)","type('A',(),{})()", "compile('1','x','exec')", "input()", "setattr(x,'y',1)"]
muts=[]
for s in random.sample(base, min(300,len(base))):
    lines=s.split('\n')
    for e in random.sample(evil, 4):
        i=random.randrange(len(lines)+1)
        muts.append('\n'.join(lines[:i]+[e]+lines[i:]))
allsn=base+muts
print(len(base), 'snippets from logs,', len(muts), 'mutants', file=sys.stderr)
def approved(code):
    cmd='python3 -c '+shlex.quote(code)
    p=subprocess.run([B,'eval','--cwd','/home/u/proj','--project','/home/u/proj','--home','/home/u','--trust','/nonexistent','--','-'],input=cmd,capture_output=True,text=True)
    return p.stdout.split('\n')[0]=='Approved'
def pure(code):
    try: t=ast.parse(code)
    except SyntaxError: return True   # python refuses to run it
    for n in ast.walk(t):
        if isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in ALLOWED): return False
            if any(k.arg in (None,'key','file') for k in n.keywords): return False
        if isinstance(n,(ast.FunctionDef,ast.AsyncFunctionDef,ast.ClassDef,ast.Lambda,ast.With,ast.Delete,ast.Global,ast.Nonlocal,ast.Yield,ast.Await)): return False
        if isinstance(n,(ast.Attribute,ast.Subscript)) and isinstance(n.ctx,(ast.Store,ast.Del)): return False
        if isinstance(n,ast.Name) and n.id in ALLOWED and not isinstance(n.ctx, ast.Load): return False
        if isinstance(n,ast.alias) and ((n.asname or n.name) in ALLOWED or n.name.split('.')[0] in ('antigravity','this','idlelib','turtledemo')): return False
        if isinstance(n,ast.Name) and n.id.startswith('__') and n.id not in ('__version__','__file__','__name__','__path__','__doc__','__all__','__spec__'): return False
        if isinstance(n,ast.Attribute) and n.attr.startswith('__') and n.attr not in ('__version__','__file__','__name__','__path__','__doc__','__all__','__spec__'): return False
    return True
acc=0; bad=[]
from concurrent.futures import ThreadPoolExecutor
with ThreadPoolExecutor(2) as ex:
    res=list(ex.map(approved, allsn))
for code, ok in zip(allsn,res):
    if ok:
        acc+=1
        if not pure(code): bad.append(code)
print('accepted', acc, 'of', len(allsn), '; accepted but not pure by ast:', len(bad))
for b in bad[:10]: print(repr(b[:300]))
