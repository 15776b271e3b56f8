#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Golden differential test of `chakra feed` (see README here).

  make_cases.py --write DIR            write the cases' pack input (DIR/NAME.json)
  make_cases.py --record CHAKRA        run CHAKRA (the known-good binary) on every
                                       case and option set; rewrite expected/*.txt
  make_cases.py --check CHAKRA [SHARED]  run CHAKRA the same way and compare with
                                       expected/*.txt (exit 1 on any mismatch)

The cases come from a fixed-seed splitmix64 generator (no `random` module, so
the traces do not depend on the Python version). Traces are packed with
`CHAKRA pack` into a temporary directory and fed from there under their bare
name (the working directory is that directory), so stderr is the same on
every machine. The real trace is fed from $CHAKRA_SHARED/data/chakra the same
way. Standard library only.
"""
import difflib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, 'expected')
REAL_CASE = 'real-chakra0'
REAL_FILE = 'chakra.0.et.gz'

# Option sets every case is fed with (order is the order in expected/*.txt).
OPTION_SETS = [
    [],
    ['--deps', 'ctrl'],
    ['--deps', 'both'],
    ['--order', 'file'],
    ['--inflight', '3'],
    ['--window', '7'],
    ['--window', '100'],
    ['--strict'],
    ['--deps', 'both', '--strict'],
    ['--deps', 'both', '--window', '7'],
    ['--deps', 'both', '--order', 'file', '--inflight', '3'],
    ['--deps', 'ctrl', '--window', '1', '--inflight', '2', '--order', 'file'],
    ['--deps', 'both', '--window', '100', '--inflight', '5'],
]

FULL_LINES = 200     # stdout up to this many lines is stored in full
CHUNK = 256          # larger stdout: count, sha256, head/tail, per-chunk hashes
HEADTAIL = 8
STDERR_FULL = 16384  # stderr is stored verbatim up to this many bytes

M64 = (1 << 64) - 1


class Rng:
    """splitmix64: deterministic everywhere."""

    def __init__(self, seed):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n

    def chance(self, percent):
        return self.below(100) < percent

    def shuffle(self, a):
        for i in range(len(a) - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]

    def sample(self, pool, k):
        pool = list(pool)
        k = min(k, len(pool))
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


def node(i, data=(), ctrl=()):
    return {'id': i, 'data_deps': list(data), 'ctrl_deps': list(ctrl)}


def dag(rng, n, back=16, maxdata=3, ctrl_pct=30, maxctrl=2):
    """Nodes 0..n-1 (topological index), deps on earlier indices only."""
    out = []
    for i in range(n):
        lo = max(0, i - back)
        pool = range(lo, i)
        d = rng.sample(pool, rng.below(maxdata + 1)) if i else []
        c = rng.sample(pool, 1 + rng.below(maxctrl)) if i and rng.chance(ctrl_pct) else []
        out.append(node(i, d, c))
    return out


def relabel(nodes, ids):
    """Give topological index k the id ids[k], in deps too."""
    return [node(ids[nd['id']], [ids[p] for p in nd['data_deps']],
                 [ids[p] for p in nd['ctrl_deps']]) for nd in nodes]


def cases():
    """[(name, description, nodes, gzip, cut)] in a fixed order; cut: bytes
    chopped off the end of the packed (uncompressed) trace."""
    rng = Rng(0x676F6C64656E)   # "golden"
    cs = []

    def add(name, desc, nodes, gz=False, cut=0):
        cs.append((name, desc, nodes, gz, cut))

    add('empty', 'no nodes at all', [])
    add('single', 'one node, no deps', [node(0)])
    add('single-huge-id', 'one node with id 2^64-1', [node(M64)])
    add('single-self-data', 'one node listing itself as data parent', [node(5, [5])])
    add('single-self-ctrl', 'one node listing itself as control parent', [node(5, [], [5])])
    add('chain-100', 'chain 0..99 in file order', [node(i, [i - 1] if i else []) for i in range(100)])
    add('chain-rev-60', 'chain whose file order is reversed (parents after children)',
        list(reversed([node(i, [i - 1] if i else [], [i - 1] if i else []) for i in range(60)])))
    add('fan-out-in', 'one root, 40 children, one sink',
        [node(0)] + [node(i, [0]) for i in range(1, 41)] + [node(41, range(1, 41))])

    # Random DAGs, ids = file order.
    for n in (10, 40, 150, 700, 3000):
        add('dag-%d' % n, 'random DAG, ids in file order', dag(rng, n))
    add('dag-wide-500', 'random DAG, long-range deps, no ctrl',
        dag(rng, 500, back=400, maxdata=5, ctrl_pct=0))
    add('dag-dense-80', 'random DAG, many deps per node', dag(rng, 80, back=80, maxdata=8, ctrl_pct=60, maxctrl=6))

    # Ids shuffled (not increasing along dependencies), file order topological.
    for n in (30, 250, 2000):
        base = dag(rng, n)
        ids = list(range(n))
        rng.shuffle(ids)
        add('ids-shuffled-%d' % n, 'random DAG, ids a random permutation, file order topological',
            relabel(base, ids))
    # File order shuffled: parents appear after children.
    for n in (25, 300, 2500):
        nodes = dag(rng, n)
        rng.shuffle(nodes)
        add('file-shuffled-%d' % n, 'random DAG, ids topological, file order shuffled', nodes)
    # Both shuffled.
    for n in (50, 1200):
        base = dag(rng, n, ctrl_pct=50)
        ids = list(range(100, 100 + n))
        rng.shuffle(ids)
        nodes = relabel(base, ids)
        rng.shuffle(nodes)
        add('both-shuffled-%d' % n, 'ids and file order both shuffled', nodes)
    # Reversed file order, larger than the small windows.
    add('dag-rev-400', 'random DAG in reverse file order', list(reversed(dag(rng, 400))))
    # Local disorder: blocks of 20 reversed.
    nodes = dag(rng, 900, back=30)
    local = []
    for b in range(0, 900, 20):
        local.extend(reversed(nodes[b:b + 20]))
    add('dag-blockrev-900', 'random DAG, file order reversed within blocks of 20', local)

    # Control deps on absent ids.
    nodes = dag(rng, 60)
    for nd in nodes[::7]:
        nd['ctrl_deps'].append(10000 + nd['id'])
    add('ctrl-absent', 'control deps on ids that never appear', nodes)
    nodes = dag(rng, 500)
    for nd in nodes[::3]:
        nd['ctrl_deps'].extend([99999, 1 << 62])
    add('ctrl-absent-500', 'many control deps on two absent ids', nodes)
    # Self control deps.
    nodes = dag(rng, 45)
    for nd in nodes[::5]:
        nd['ctrl_deps'].append(nd['id'])
    add('ctrl-self', 'nodes listing themselves as control parents', nodes)
    # Parent listed twice.
    nodes = dag(rng, 70, ctrl_pct=0)
    for nd in nodes[1::4]:
        p = nd['id'] - 1
        nd['data_deps'] += [p, p]
    for nd in nodes[2::4]:
        p = nd['id'] - 2
        nd['data_deps'].append(p)
        nd['ctrl_deps'].append(p)
    for nd in nodes[3::4]:
        p = nd['id'] - 3
        nd['ctrl_deps'] += [p, p, p]
    add('dup-parent', 'parents repeated in one list and across data/ctrl lists', nodes)
    # Everything legal at once.
    nodes = dag(rng, 1500, ctrl_pct=50)
    for nd in nodes:
        r = rng.below(20)
        if r == 0:
            nd['ctrl_deps'].append(nd['id'])
        elif r == 1:
            nd['ctrl_deps'].append(5000000 + rng.below(50))
        elif r == 2 and nd['data_deps']:
            nd['ctrl_deps'].append(nd['data_deps'][0])
        elif r == 3 and nd['data_deps']:
            nd['data_deps'].append(nd['data_deps'][-1])
    rng.shuffle(nodes[700:900])
    add('mixed-warnings-1500', 'self/absent/repeated control deps, local file disorder', nodes)

    # Control edges closing cycles with data edges (CPU op -> GPU kernel).
    nodes = []
    for k in range(30):
        op, kern = 2 * k, 2 * k + 1
        nodes.append(node(op, [op - 2] if k else [], [kern]))
        nodes.append(node(kern, [op]))
    add('cpu-gpu-cycles', 'kernel data-depends on op, op ctrl-depends on kernel', nodes)
    nodes = []
    for k in range(600):
        op, kern = 10 * k, 10 * k + 5
        nodes.append(node(op, [op - 10] if k else [], [kern]))
        nodes.append(node(kern, [op], [kern - 10] if k else []))
    add('cpu-gpu-cycles-1200', '600 op/kernel cycles, more than small windows', nodes)
    nodes = dag(rng, 200, ctrl_pct=0)
    for nd in nodes[10:]:
        if rng.chance(25):
            # a control edge from an ancestor-ish node back to this one's descendant
            child = min(199, nd['id'] + 1 + rng.below(5))
            nd['ctrl_deps'].append(child)
    add('ctrl-back-edges', 'random DAG plus control edges pointing forward (may close cycles)', nodes)
    add('ctrl-cycle-only', 'a pure control cycle 1->2->3->1 plus a tail',
        [node(1, [], [3]), node(2, [], [1]), node(3, [], [2]), node(4, [3], [2])])
    add('ctrl-long-cycle', 'control cycle of 50 nodes, ids in reverse',
        [node(100 - i, [], [100 - ((i + 1) % 50)]) for i in range(50)])

    # Data cycles: stall errors.
    add('data-cycle-3', 'data cycle 2 -> 4 -> 3 -> 2 after a good prefix',
        [node(0), node(1, [0]), node(2, [3, 1]), node(3, [4]), node(4, [2]), node(5, [4])])
    add('data-cycle-self', 'self data dep in the middle of a chain',
        [node(i, [i - 1] if i else []) for i in range(5)] + [node(5, [4, 5]), node(6, [5])])
    nodes = dag(rng, 800)
    nodes[650]['data_deps'].append(500)
    nodes[500]['data_deps'].append(650)
    add('data-cycle-late', 'random DAG, data cycle 500 <-> 650 far past the small windows', nodes)
    cyc = [node(1000 + i, [1000 + (i + 1) % 40]) for i in range(40)]
    add('data-cycle-40', 'data cycle of 40 nodes (long-cycle formatting)', dag(rng, 30) + cyc)
    add('data-cycle-two', 'two disjoint data cycles and a node waiting on both',
        [node(1, [2]), node(2, [1]), node(7, [8]), node(8, [9]), node(9, [7]), node(10, [1, 7]), node(11)])
    add('data-cycle-with-ctrl', 'data cycle whose members also have control deps',
        [node(0), node(1, [0], [3]), node(2, [1, 3], [0]), node(3, [2], [1]), node(4, [], [2])])

    # Absent data parents: stall errors.
    add('absent-data-1', 'the docs example: node 3 waits for 99',
        [node(1), node(3, [1, 99]), node(4, [3])])
    nodes = dag(rng, 120)
    for nd in nodes[40::9]:
        nd['data_deps'].append(7777 + nd['id'])
    add('absent-data-many', 'several absent data parents in a DAG', nodes)
    nodes = dag(rng, 2200, ctrl_pct=10)
    nodes[2100]['data_deps'].append(1 << 40)
    add('absent-data-late', 'large DAG, one absent data parent near the end', nodes)
    add('absent-data-ctrl-ok', 'absent parent as control dep only (fine) and as data dep (stall)',
        [node(1, [], [50]), node(2, [1], [51]), node(3, [2, 52])])

    # Duplicate node ids.
    add('dup-id-adjacent', 'the same id twice in a row', [node(0), node(1, [0]), node(1, [0]), node(2, [1])])
    nodes = dag(rng, 300)
    nodes[250] = node(40, [])
    add('dup-id-far', 'an id repeated 210 nodes later (completed by then with small windows)', nodes)
    nodes = dag(rng, 50)
    nodes.insert(10, node(45))
    add('dup-id-before', 'an id appearing early and again in its place', nodes)
    add('dup-id-parent-later', 'duplicate of a node that is a pending parent',
        [node(5, [9]), node(9), node(9, [])])

    # Sparse and huge ids.
    n = 400
    base = dag(rng, n)
    add('ids-stride-1000', 'ids strided by 1000', relabel(base, [1000 * i for i in range(n)]))
    top = (1 << 63) - 1
    add('ids-near-2p63', 'ids 2^63-1 downwards by 1000 (topological order = decreasing ids)',
        relabel(dag(rng, 250), [top - 1000 * i for i in range(250)]))
    ids = [(1 << 63) - 2000 + 1000 * i for i in range(300)]
    rng.shuffle(ids)
    add('ids-across-2p63', 'ids around 2^63, strided by 1000, shuffled', relabel(dag(rng, 300), ids))
    ids = [M64 - i for i in range(64)]
    add('ids-top-u64', 'ids at the top of uint64', relabel(dag(rng, 64), ids))
    ids = sorted(rng.next() >> rng.below(40) for _ in range(500))
    ids = list(dict.fromkeys(ids))
    add('ids-random-sparse', 'random sparse ids (increasing with file order)',
        relabel(dag(rng, len(ids)), ids))
    nodes = relabel(dag(rng, 200), [(1 << 63) + 1000 * i for i in range(200)])
    nodes[120]['ctrl_deps'].append((1 << 63) + 999999)
    nodes[150]['data_deps'].append(M64)
    add('ids-huge-absent', 'huge ids with an absent control and an absent data parent', nodes)

    # Window-sensitive: out-of-order ids with several ready at once.
    nodes = [node(i) for i in range(1000)]
    rng.shuffle(nodes)
    add('independent-1000', '1000 independent nodes in shuffled file order', nodes)
    nodes = []
    for b in range(30):
        ids = list(range(b * 100, b * 100 + 100))
        rng.shuffle(ids)
        nodes += [node(i, [ids[0]] if i != ids[0] else []) for i in ids]
    add('stars-shuffled-3000', '30 stars, hub first in file, leaves shuffled', nodes)

    # gzip-compressed traces.
    add('gz-dag-200', 'gzip, ids shuffled',
        relabel(dag(rng, 200), rng.sample(range(200, 400), 200)), gz=True)
    add('gz-data-cycle', 'gzip, stall on a data cycle', [node(0), node(1, [2, 0]), node(2, [1])], gz=True)
    add('gz-empty', 'gzip, no nodes', [], gz=True)

    # Bad files: the error names the byte offset and node index.
    add('truncated-mid', 'file order shuffled, last 3 bytes cut (message cut short)',
        dag(rng, 400)[::-1], cut=3)
    add('truncated-one', '20-node chain, last byte cut', [node(i, [i - 1] if i else []) for i in range(20)],
        cut=1)

    # Lazy mode's read-ahead: messages of very different sizes (names up to
    # 40 KB), so the bytes kept for queued and in-flight nodes are moved
    # and their buffer grows (a byte ring that wrapped and grew, when the
    # expectations were recorded); then the same with a node breaking the
    # id order in the middle (the queued nodes are inserted at once).
    def names(nodes):
        for nd in nodes:
            nd['name'] = 'n' * (rng.below(40000) if rng.below(4) == 0 else rng.below(60))
        return nodes
    add('big-names-600', 'ids in order, names of 0..40000 bytes', names(dag(rng, 600, back=40)))
    nodes = names(dag(rng, 500, back=40))
    nodes[300]['id'] = 99
    add('big-names-dup', 'big names, node 300 reuses id 99 (a duplicate met while nodes are queued)',
        nodes)
    nodes = names(relabel(dag(rng, 500, back=40), [2 * i for i in range(500)]))
    for nd in nodes:
        nd['data_deps'] = [301 if p == 600 else p for p in nd['data_deps']]
        nd['ctrl_deps'] = [301 if p == 600 else p for p in nd['ctrl_deps']]
    nodes[300]['id'] = 301
    add('big-names-lower', 'big names, ids 0,2,4,..; node 300 has id 301, lower than the one before',
        nodes)
    return cs


def case_json(nodes):
    parts = ['{"metadata":{"version":""},"nodes":[']
    parts.append(',\n'.join(json.dumps(nd, separators=(',', ':')) for nd in nodes))
    parts.append(']}\n')
    return ''.join(parts)


def trace_name(name, gz):
    return name + ('.0.et.gz' if gz else '.0.et')


def run_env():
    env = dict(os.environ)
    env['CHAKRA_NO_PROGRESS'] = '1'
    env['LC_ALL'] = 'C'
    return env


def pack_all(chakra, tmp):
    """Write and pack every case into tmp; return [(name, desc, trace, json_sha)]."""
    out = []
    env = run_env()
    for name, desc, nodes, gz, cut in cases():
        text = case_json(nodes)
        jpath = os.path.join(tmp, name + '.json')
        with open(jpath, 'w') as f:
            f.write(text)
        trace = trace_name(name, gz)
        cmd = [chakra, 'pack', name + '.json', '-o', trace] + (['--gzip'] if gz else [])
        p = subprocess.run(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if p.returncode != 0:
            raise SystemExit('pack failed for %s: %s' % (name, p.stderr.decode('utf-8', 'replace')))
        if cut:
            tpath = os.path.join(tmp, trace)
            size = os.path.getsize(tpath)
            with open(tpath, 'r+b') as f:
                f.truncate(max(0, size - cut))
        out.append((name, desc, trace, hashlib.sha256(('%d\n' % cut + text).encode()).hexdigest()[:16]))
    return out


def feed(chakra, cwd, trace, opts):
    p = subprocess.run([chakra, 'feed', trace] + opts, cwd=cwd, env=run_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')


def optkey(opts):
    return ' '.join(opts) if opts else '(default)'


def lines_of(text):
    """Lines, with a marker if the text does not end in a newline."""
    if text == '':
        return []
    ls = text.split('\n')
    if ls[-1] == '':
        ls.pop()
    else:
        ls.append('\\ no newline at end')
    return ls


def sha(s):
    return hashlib.sha256(s.encode()).hexdigest()


def stdout_record(out):
    """Stored form of a stdout: list of lines to write."""
    ls = lines_of(out)
    if len(ls) <= FULL_LINES:
        return ['stdout %d' % len(ls)] + ls
    rec = ['stdout-digest %d %s' % (len(ls), sha(out))]
    rec.append('head %d' % HEADTAIL)
    rec += ls[:HEADTAIL]
    rec.append('tail %d' % HEADTAIL)
    rec += ls[-HEADTAIL:]
    chunks = [sha('\n'.join(ls[i:i + CHUNK]))[:12] for i in range(0, len(ls), CHUNK)]
    rec.append('chunks %d %s' % (CHUNK, ' '.join(chunks)))
    return rec


def stderr_record(err):
    if len(err.encode()) <= STDERR_FULL:
        ls = lines_of(err)
        return ['stderr %d' % len(ls)] + ls
    ls = lines_of(err)
    return ['stderr-digest %d %s' % (len(ls), sha(err)), 'head %d' % 20] + ls[:20]


def record_case(f, name, desc, jsha, results):
    f.write('# %s: %s\n' % (name, desc))
    f.write('input %s\n' % jsha)
    seen = {}
    seen_err = {}
    for opts, (rc, out, err) in results:
        k = optkey(opts)
        f.write('[%s]\n' % k)
        f.write('exit %d\n' % rc)
        if out in seen:
            f.write('stdout-as [%s]\n' % seen[out])
        else:
            seen[out] = k
            f.write('\n'.join(stdout_record(out)) + '\n')
        if err in seen_err:
            f.write('stderr-as [%s]\n' % seen_err[err])
        else:
            seen_err[err] = k
            f.write('\n'.join(stderr_record(err)) + '\n')


class Parser:
    def __init__(self, path):
        with open(path) as f:
            self.ls = f.read().split('\n')
        if self.ls and self.ls[-1] == '':
            self.ls.pop()
        self.i = 0

    def more(self):
        return self.i < len(self.ls)

    def take(self):
        s = self.ls[self.i]
        self.i += 1
        return s

    def take_n(self, n):
        r = self.ls[self.i:self.i + n]
        if len(r) != n:
            raise ValueError('truncated expectation file')
        self.i += n
        return r


def parse_expected(path):
    """{'input': sha, 'runs': {optkey: {'exit', 'stdout': rec, 'stderr': rec}}}"""
    p = Parser(path)
    exp = {'input': None, 'runs': {}}
    cur = None
    stdouts = {}
    stderrs = {}
    while p.more():
        s = p.take()
        if s.startswith('# '):
            continue
        if s.startswith('input '):
            exp['input'] = s.split()[1]
        elif s.startswith('[') and s.endswith(']'):
            cur = {}
            exp['runs'][s[1:-1]] = cur
            key = s[1:-1]
        elif s.startswith('exit '):
            cur['exit'] = int(s.split()[1])
        elif s.startswith('stdout-as '):
            cur['stdout'] = stdouts[s[len('stdout-as ['):-1]]
            stdouts[key] = cur['stdout']
        elif s.startswith('stdout '):
            cur['stdout'] = ('full', p.take_n(int(s.split()[1])))
            stdouts[key] = cur['stdout']
        elif s.startswith('stdout-digest '):
            _, n, h = s.split()
            hd = p.take()
            head = p.take_n(int(hd.split()[1]))
            tl = p.take()
            tail = p.take_n(int(tl.split()[1]))
            ch = p.take().split()
            cur['stdout'] = ('digest', int(n), h, head, tail, int(ch[1]), ch[2:])
            stdouts[key] = cur['stdout']
        elif s.startswith('stderr-as '):
            cur['stderr'] = stderrs[s[len('stderr-as ['):-1]]
            stderrs[key] = cur['stderr']
        elif s.startswith('stderr '):
            cur['stderr'] = ('full', p.take_n(int(s.split()[1])))
            stderrs[key] = cur['stderr']
        elif s.startswith('stderr-digest '):
            _, n, h = s.split()
            hd = p.take()
            cur['stderr'] = ('digest', int(n), h, p.take_n(int(hd.split()[1])))
            stderrs[key] = cur['stderr']
        else:
            raise ValueError('%s:%d: unexpected line %r' % (path, p.i, s))
    return exp


def udiff(exp, act, what):
    d = list(difflib.unified_diff(exp, act, 'expected ' + what, 'actual ' + what, lineterm='', n=3))
    if len(d) > 60:
        d = d[:60] + ['... (%d more diff lines)' % (len(d) - 60)]
    return '\n'.join(d)


def compare_stdout(rec, out):
    """None if it matches, else a description."""
    ls = lines_of(out)
    if rec[0] == 'full':
        return None if rec[1] == ls else udiff(rec[1], ls, 'stdout')
    _, n, h, head, tail, chunk, chunks = rec
    if sha(out) == h and len(ls) == n:
        return None
    msg = ['stdout: expected %d lines (sha256 %s), got %d lines' % (n, h[:16], len(ls))]
    act = [sha('\n'.join(ls[i:i + chunk]))[:12] for i in range(0, len(ls), chunk)]
    for k in range(max(len(chunks), len(act))):
        if k >= len(chunks) or k >= len(act) or chunks[k] != act[k]:
            lo = k * chunk
            msg.append('first differing block: lines %d..%d (1-based); actual lines there:'
                       % (lo + 1, lo + chunk))
            msg += ['  ' + x for x in ls[lo:lo + 12]]
            if len(ls) > lo + 12:
                msg.append('  ...')
            break
    else:
        msg.append('every block matches: the recorded digest is inconsistent with its blocks')
    if ls[:len(head)] != head:
        msg.append(udiff(head, ls[:len(head)], 'stdout head'))
    if ls[-len(tail):] != tail:
        msg.append(udiff(tail, ls[-len(tail):], 'stdout tail'))
    return '\n'.join(msg)


def compare_stderr(rec, err):
    ls = lines_of(err)
    if rec[0] == 'full':
        return None if rec[1] == ls else udiff(rec[1], ls, 'stderr')
    _, n, h, head = rec
    if sha(err) == h and len(ls) == n:
        return None
    return ('stderr: expected %d lines (sha256 %s), got %d lines\n' % (n, h[:16], len(ls))
            + udiff(head, ls[:len(head)], 'stderr head'))


def all_runs(chakra, shared, tmp):
    """Yield (name, desc, input_sha, [(opts, (rc, out, err))]) for every case."""
    for name, desc, trace, jsha in pack_all(chakra, tmp):
        yield name, desc, trace, jsha, [(o, feed(chakra, tmp, trace, o)) for o in OPTION_SETS]
    ddir = os.path.join(shared, 'data', 'chakra')
    if not os.path.exists(os.path.join(ddir, REAL_FILE)):
        raise SystemExit('missing %s' % os.path.join(ddir, REAL_FILE))
    yield REAL_CASE, 'the real trace ' + REAL_FILE, REAL_FILE, '-', \
        [(o, feed(chakra, ddir, REAL_FILE, o)) for o in OPTION_SETS]


def shared_dir(argv_rest):
    if argv_rest:
        return argv_rest[0]
    s = os.environ.get('CHAKRA_SHARED')
    if not s:
        s = os.path.join(HERE, '..', '..', '..', '..', 'shared')
    return s


def record(chakra, shared):
    tmp = tempfile.mkdtemp(prefix='feed-golden-')
    try:
        if os.path.isdir(EXPECTED):
            for fn in os.listdir(EXPECTED):
                if fn.endswith('.txt'):
                    os.unlink(os.path.join(EXPECTED, fn))
        else:
            os.mkdir(EXPECTED)
        n = 0
        for name, desc, _, jsha, results in all_runs(chakra, shared, tmp):
            with open(os.path.join(EXPECTED, name + '.txt'), 'w') as f:
                record_case(f, name, desc, jsha, results)
            n += 1
        print('recorded %d cases x %d option sets into %s' % (n, len(OPTION_SETS), EXPECTED))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


def check(chakra, shared):
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix='feed-golden-')
    bad_cases = []
    runs = mism = 0
    names = set()
    try:
        for name, desc, trace, jsha, results in all_runs(chakra, shared, tmp):
            names.add(name)
            path = os.path.join(EXPECTED, name + '.txt')
            if not os.path.exists(path):
                print('FAIL %s: no expectation file %s' % (name, path))
                bad_cases.append(name)
                continue
            exp = parse_expected(path)
            if exp['input'] != jsha:
                print('FAIL %s: the generated input changed (sha %s, expected %s): '
                      'make_cases.py no longer makes the recorded trace' % (name, jsha, exp['input']))
                bad_cases.append(name)
                continue
            first = None
            nbad = 0
            for opts, (rc, out, err) in results:
                runs += 1
                k = optkey(opts)
                e = exp['runs'].get(k)
                if e is None:
                    problems = ['no expectation recorded for this option set']
                else:
                    problems = []
                    if rc != e['exit']:
                        problems.append('exit status: expected %d, got %d' % (e['exit'], rc))
                    d = compare_stdout(e['stdout'], out)
                    if d:
                        problems.append(d)
                    d = compare_stderr(e['stderr'], err)
                    if d:
                        problems.append(d)
                if problems:
                    nbad += 1
                    mism += 1
                    if first is None:
                        first = (opts, problems)
            if first:
                bad_cases.append(name)
                print(('FAIL %s (%s): %d of %d option sets differ; first: chakra feed %s %s'
                       % (name, desc, nbad, len(results), trace, ' '.join(first[0]))).rstrip())
                for p in first[1]:
                    print('  ' + p.replace('\n', '\n  '))
        for fn in sorted(os.listdir(EXPECTED)):
            if fn.endswith('.txt') and fn[:-4] not in names:
                print('FAIL %s: expectation file without a case' % fn)
                bad_cases.append(fn)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    dt = time.time() - t0
    print('feed-golden: %d cases x %d option sets = %d runs, %d mismatching runs in %d cases (%.1f s)'
          % (len(names), len(OPTION_SETS), runs, mism, len(bad_cases), dt))
    return 1 if bad_cases else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == '--write':
        os.makedirs(argv[2], exist_ok=True)
        for name, _, nodes, _, _ in cases():
            with open(os.path.join(argv[2], name + '.json'), 'w') as f:
                f.write(case_json(nodes))
        return 0
    if len(argv) >= 3 and argv[1] == '--record':
        return record(os.path.abspath(argv[2]), shared_dir(argv[3:]))
    if len(argv) >= 3 and argv[1] == '--check':
        return check(os.path.abspath(argv[2]), shared_dir(argv[3:]))
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
