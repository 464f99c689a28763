#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Call stacks: what `profil record -g` costs and gives, side by side with
`perf record --call-graph dwarf` and `--call-graph fp`.

    callgraph.py --build build --out bench/results [--quick] [--smoke] [--reps N]

Part of `make bench` (bench.py runs it after the flat workloads; results in
callgraph.md and results.json).  The workload is build/bench/wl_stacks
(bench/workloads/wl_stacks.c): built without frame pointers, a 1296-path
call tree, compress2 from two callers through Debian's zlib, and a worker
thread; a fixed amount of work, so that its own CPU time (getrusage,
written to $BENCH_TRUTH) measures what sampling costs it.

Per rate (~1 kHz and ~10 kHz), every repetition runs each variant once
paired with an unprofiled run just before it, in an order rotated every
repetition.  Metrics (doc/bench.md, "Call stacks"):
  overhead      the workload's own CPU / its paired unprofiled run's - 1
  recorder      CPU of the recorder itself (the whole tree's wait4 rusage
                minus the workload's own), ms per 1000 samples
  read          CPU to turn the file into stacks once (perf script, which
                unwinds perf's dwarf copies then; profil's stacks are already
                unwound: stack_query folded only symbolises), s per 100k samples
  size          file size per 100k samples (profil: also one run of ~100k)
  reach         samples whose stack reaches main (main thread) or
                worker_main (the worker's start routine)
  split error   |caller_a's share of the zlib time - the truth|, points
  lost          samples the recorder reports lost
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (run_tree, the same runner as the flat workloads)

RATES = (997, 9973)
FIXED_SCALE = 0.001  # a run that does almost nothing: the recorder's fixed cost
REACH = ('main', 'worker_main')


class Variant:
    """One way of running the workload: kind 'profil', 'perf' or 'none'."""

    def __init__(self, name, kind, args, desc):
        self.name, self.kind, self.args, self.desc = name, kind, args, desc

    def argv(self, ctx, hz, data, wl):
        if self.kind == 'profil':
            return [ctx.profil, 'record', '-q', '-F', str(hz), '-o', data] + self.args + ['--'] + wl
        if self.kind == 'perf':
            # user space only, as profil records it without kernel sampling
            return ['perf', 'record', '-q', '-e', 'task-clock:u', '-F', str(hz), '-o', data] + \
                self.args + ['--'] + wl
        return wl


VARIANTS = [
    Variant('profil-flat-perf', 'profil', ['--clock', 'perf'], 'profil record, flat, perf clock'),
    Variant('profil-flat', 'profil', [], 'profil record, flat, default clock (auto: perf)'),
    Variant('profil-flat-bpf', 'profil', ['--clock', 'bpf'],
            'profil record --clock bpf, flat (the BPF histogram)'),
    Variant('profil-g', 'profil', ['-g'], 'profil record -g (the default clock: auto)'),
    Variant('profil-g-perf', 'profil', ['-g', '--clock', 'perf'],
            'profil record -g --clock perf (16 KiB copies through the ring, unwound by the '
            'recorder)'),
    Variant('profil-g-8k', 'profil', ['--call-graph', 'dwarf,8192', '--clock', 'perf'],
            'profil record --call-graph dwarf,8192 (the copy perf takes)'),
    Variant('profil-g-bpf', 'profil', ['-g', '--clock', 'bpf'],
            'profil record -g --clock bpf (stacks walked through the CFI and counted in the '
            'kernel)'),
    Variant('profil-fp', 'profil', ['--call-graph', 'fp', '--clock', 'perf'],
            'profil record --call-graph fp'),
    Variant('perf-dwarf', 'perf', ['--call-graph', 'dwarf'],
            'perf record --call-graph dwarf (8 KiB copies, unwound by perf script)'),
    Variant('perf-fp', 'perf', ['--call-graph', 'fp'], 'perf record --call-graph fp'),
]
def log(msg):
    print(msg, file=sys.stderr, flush=True)


def cpu_of(argv, env=None, stdout='/dev/null'):
    """CPU seconds (user + sys) of running argv to completion."""
    status, cpu, _ = bench.run_tree(argv, env or dict(os.environ), os.getcwd(), stdout, '/dev/null')
    return status, cpu


def stack_query(ctx, data, *args):
    r = subprocess.run([ctx.stack_query, data] + list(args), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ''


def profil_header(ctx, data):
    line = stack_query(ctx, data, 'header').splitlines()
    return dict(f.split('=', 1) for f in line[0].split() if '=' in f) if line else {}


def profil_count(ctx, data, *filters):
    out = stack_query(ctx, data, 'count', *filters).strip()
    return int(out) if out.isdigit() else 0


def perf_blocks(text):
    """perf script -F tid,ip,sym output: one list of symbols per sample."""
    blocks, cur = [], None
    for line in text.splitlines():
        if not line.strip():
            if cur is not None:
                blocks.append(cur)
            cur = None
        elif not line.startswith('\t') and not line.startswith(' ' * 8):
            if cur is not None:
                blocks.append(cur)
            cur = []
        elif cur is not None:
            f = line.split(None, 1)
            cur.append(f[1].split(' (')[0].strip() if len(f) > 1 else '')
    if cur is not None:
        blocks.append(cur)
    return blocks


def perf_counts(data):
    """Samples and lost samples of a perf.data, without unwinding."""
    r = subprocess.run(['perf', 'script', '-i', data, '-F', 'tid', '--show-lost-events'],
                       capture_output=True, text=True)
    samples, lost = 0, 0
    for line in r.stdout.splitlines():
        if 'PERF_RECORD_LOST' in line:
            m = bench.PERF_LOST.search(line)
            lost += int(m.group(1)) if m else 0
        elif line.strip().isdigit():
            samples += 1
    return samples, lost


def quality(ctx, v, data, truth, tmp):
    """reach, split error, read cost of one run's file."""
    q = {}
    t = truth.get('functions', {})
    ta, tb = t.get('zlib_caller_a', 0), t.get('zlib_caller_b', 0)
    truth_share = ta / (ta + tb) if ta + tb else None
    out = os.path.join(tmp, 'read.txt')
    if v.kind == 'profil':
        h = profil_header(ctx, data)
        samples = int(h.get('samples', 0))
        reach = sum(profil_count(ctx, data, '--has', f) for f in REACH)
        a = profil_count(ctx, data, '--has', 'zlib_caller_a')
        b = profil_count(ctx, data, '--has', 'zlib_caller_b')
        _, read_cpu = cpu_of([ctx.stack_query, data, 'folded'], stdout=out)
        q['complete'] = 1 - int(h.get('truncated', 0)) / samples if samples else None
        q['stacks'] = int(h.get('stacks', 0))
        if h.get('callgraph') == 'none':
            return {'read_s_per_100k': read_cpu / samples * 1e5 if samples else None}
    else:
        _, read_cpu = cpu_of(['perf', 'script', '-i', data, '-F', 'tid,ip,sym'], stdout=out)
        with open(out, errors='replace') as f:
            blocks = perf_blocks(f.read())
        samples = len(blocks)
        reach = sum(1 for b_ in blocks if any(s in REACH for s in b_))
        a = sum(1 for b_ in blocks if 'zlib_caller_a' in b_)
        b = sum(1 for b_ in blocks if 'zlib_caller_b' in b_)
    q['reach'] = reach / samples if samples else None
    q['split_error'] = (abs(a / (a + b) - truth_share) * 100
                        if a + b and truth_share is not None else None)
    q['zlib_attributed'] = (a + b)
    q['read_s_per_100k'] = read_cpu / samples * 1e5 if samples else None
    q['read_cpu'] = read_cpu
    return q


def run_variant(ctx, v, hz, tmp, with_quality, scale=None):
    data = os.path.join(tmp, 'data')
    truth_path = os.path.join(tmp, 'truth.json')
    for p in (data, truth_path):
        if os.path.exists(p):
            os.unlink(p)
    kstats = os.path.join(tmp, 'kunwind.json')
    if os.path.exists(kstats):
        os.unlink(kstats)
    env = dict(os.environ, BENCH_TRUTH=truth_path, BENCH_SCALE=str(scale or ctx.scale),
               PROFIL_KUNWIND_STATS=kstats)
    status, tree_cpu = cpu_of(v.argv(ctx, hz, data, [ctx.workload]), env)
    t_exit = time.monotonic()
    try:
        with open(truth_path) as f:
            truth = json.load(f)
    except (OSError, ValueError):
        return {'error': 'exit status %d, no truth' % status}
    r = {'status': status, 'tree_cpu': tree_cpu, 'inproc': truth['process_cpu_seconds']}
    if truth.get('end_monotonic'):
        # the tail: the program's last instruction (its truth written) to the profiler's exit
        r['tail'] = t_exit - truth['end_monotonic']
    if v.kind == 'none':
        return r
    r['size'] = os.path.getsize(data) if os.path.exists(data) else None
    if v.kind == 'profil':
        h = profil_header(ctx, data)
        r['samples'] = int(h.get('samples', 0))
        r['lost'] = int(h.get('lost', 0)) + int(h.get('dropped', 0))
        r['callgraph'] = h.get('callgraph')
        r.update(kunwind_figures(kstats))
    else:
        r['samples'], r['lost'] = perf_counts(data)
    r['recorder_cpu'] = tree_cpu - r['inproc']
    r['recorder_per_cpu'] = r['recorder_cpu'] / r['inproc'] if r['inproc'] else None
    if with_quality:
        r.update(quality(ctx, v, data, truth, tmp))
    return r


COST_CLASSES = ('1-7', '8-15', '16-31', '32-63', '64+')


def kunwind_figures(path):
    """The in-kernel walk's figures (PROFIL_KUNWIND_STATS): share walked in the kernel, and the
    median cost of a walk per depth class (ns, from the program's own histogram)."""
    try:
        with open(path) as f:
            d = json.load(f)
    except (OSError, ValueError):
        return {}
    out = {'kernel_share': d['counted'] / d['ticks'] if d.get('ticks') else None,
           'cost_hist': d.get('cost'), 'tick_cost_hist': d.get('tick_cost'),
           'build_ms': d.get('build_ns', 0) / 1e6,
           'reads_per_walk': d['walk_reads'] / d['counted'] if d.get('counted') and
           'walk_reads' in d else None,
           'frames_per_walk': d['walk_frames'] / d['counted'] if d.get('counted') and
           'walk_frames' in d else None}
    return out


def cost_quantiles(hists, bucket_ns=25):
    """Median, p90, p99 (ns) per depth class of summed cost histograms."""
    out = {}
    for ci, name in enumerate(COST_CLASSES):
        row = [sum(h[ci][b] for h in hists) for b in range(len(hists[0][ci]))]
        n = sum(row)
        if not n:
            continue
        q, acc = {}, 0
        for b, c in enumerate(row):
            acc += c
            for p in (0.5, 0.9, 0.99):
                if p not in q and acc >= p * n:
                    q[p] = b * bucket_ns + bucket_ns / 2
        out[name] = {'n': n, 'median': q[0.5], 'p90': q[0.9], 'p99': q[0.99]}
    return out


def summary(values):
    values = [x for x in values if x is not None]
    if not values:
        return None
    return {'median': statistics.median(values), 'min': min(values), 'max': max(values),
            'n': len(values)}


def run_all(ctx):
    base = Variant('none', 'none', [], 'unprofiled')
    runs = {}  # (variant, hz) -> [run]
    order = [(v, hz) for hz in ctx.rates for v in ctx.variants]
    t0 = time.monotonic()
    ctx.load = [os.getloadavg()]
    for rep in range(ctx.reps):
        k = rep % len(order)
        for v, hz in order[k:] + order[:k]:
            b = run_variant(ctx, base, hz, ctx.tmp, False)
            r = run_variant(ctx, v, hz, ctx.tmp, rep == 0)
            if 'inproc' in r and 'inproc' in b:
                r['overhead'] = r['inproc'] / b['inproc'] - 1
            r['base_inproc'] = b.get('inproc')
            runs.setdefault((v.name, hz), []).append(r)
        # the fixed cost: the same recorder around a program that does almost nothing
        for v in ctx.variants[k % len(ctx.variants):] + ctx.variants[:k % len(ctx.variants)]:
            r = run_variant(ctx, v, RATES[0], ctx.tmp, False, scale=FIXED_SCALE)
            runs.setdefault((v.name, 0), []).append(r)
        ctx.load.append(os.getloadavg())
        log('callgraph: repetition %d of %d done (%.0f s)' % (rep + 1, ctx.reps,
                                                          time.monotonic() - t0))
    big = {}
    for v in ctx.variants:
        if ctx.big_scale and v.name in ('profil-g', 'profil-fp'):
            # about 100k samples at ~10 kHz: the size a long profile really has
            big[v.name] = run_variant(ctx, v, RATES[-1], ctx.tmp, False, scale=ctx.big_scale)
    return runs, big


def marginal(points):
    """(per-sample slope, fixed part) of a cost measured at two sample counts."""
    if len(points) < 2:
        return None, None
    (n0, c0), (n1, c1) = min(points), max(points)
    if n1 <= n0:
        return None, None
    slope = (c1 - c0) / (n1 - n0)
    return slope, c0 - slope * n0


def summarise(ctx, runs, big):
    out = {}
    for (name, hz), rs in runs.items():
        ok = [r for r in rs if 'error' not in r]
        first = rs[0]
        s = {
            'overhead': summary([r.get('overhead') for r in ok]),
            'recorder_cpu': summary([r.get('recorder_cpu') for r in ok]),
            'size': summary([r.get('size') for r in ok]),
            'samples': summary([r.get('samples') for r in ok]),
            'lost': summary([r.get('lost') for r in ok]),
            'recorder_per_cpu': summary([r.get('recorder_per_cpu') for r in ok]),
            'kernel_share': summary([r.get('kernel_share') for r in ok]),
            'tail': summary([r.get('tail') for r in ok]),
            'reads_per_walk': summary([r.get('reads_per_walk') for r in ok]),
            'frames_per_walk': summary([r.get('frames_per_walk') for r in ok]),
            'errors': len(rs) - len(ok),
        }
        hists = [r['cost_hist'] for r in ok if r.get('cost_hist')]
        if hists:
            s['cost'] = cost_quantiles(hists)
        hists = [r['tick_cost_hist'] for r in ok if r.get('tick_cost_hist')]
        if hists:
            s['tick_cost'] = cost_quantiles(hists)
        for k in ('reach', 'split_error', 'complete', 'stacks', 'callgraph'):
            s[k] = first.get(k)
        if s['callgraph'] == 'fp':
            s['complete'] = None  # a frame-pointer chain's end cannot be told from the outermost
        if first.get('read_s_per_100k') is not None and first.get('samples'):
            s['read_cpu'] = first['read_s_per_100k'] * first['samples'] / 1e5
        out['%s@%d' % (name, hz)] = s
    # the recorder's CPU beyond its fixed cost (the median of its runs around an empty program)
    for (name, hz), rs in runs.items():
        fixed = out.get('%s@0' % name, {}).get('recorder_cpu')
        if hz and fixed:
            out['%s@%d' % (name, hz)]['beyond_fixed_per_cpu'] = summary(
                [(r['recorder_cpu'] - fixed['median']) / r['inproc'] for r in rs
                 if 'error' not in r and r.get('inproc')])
    # per-sample costs: the slope between the two rates (the fixed costs cancel)
    for v in ctx.variants:
        per = [out.get('%s@%d' % (v.name, hz)) for hz in ctx.rates]
        if None in per or len(per) < 2:
            continue
        rec = [(p['samples']['median'], p['recorder_cpu']['median']) for p in per
               if p['samples'] and p['recorder_cpu']]
        rd = [(p['samples']['median'], p['read_cpu']) for p in per
              if p['samples'] and p.get('read_cpu') is not None]
        sz = [(p['samples']['median'], p['size']['median']) for p in per
              if p['samples'] and p['size']]
        slope, fixed = marginal(rec)
        out['%s@per-sample' % v.name] = {
            'recorder_us': None if slope is None else slope * 1e6,
            'recorder_fixed_ms': None if fixed is None else fixed * 1e3,
            'read_us': None if marginal(rd)[0] is None else marginal(rd)[0] * 1e6,
            'bytes': marginal(sz)[0]}
    for name, r in big.items():
        if r.get('samples') and r.get('size'):
            out['%s@long' % name] = {'samples': r['samples'], 'size': r['size'],
                                     'size_per_100k': r['size'] / r['samples'] * 1e5,
                                     'lost': r.get('lost')}
    return out


def fmt_pct(s):
    if not s:
        return '-'
    return '%.1f [%.1f, %.1f]' % (100 * s['median'], 100 * s['min'], 100 * s['max'])


def fmt_num(x, f='%.2f'):
    return '-' if x is None else f % x


def med(s, scale=1.0, f='%.0f'):
    return '-' if not s else f % (s['median'] * scale)


def write_md(ctx, summ, path):
    lines = ['# Call stacks', '',
             'Workload `wl_stacks` (bench/workloads/wl_stacks.c): built `-O2 -fomit-frame-pointer`, '
             'a 1296-path call tree, `compress2` through Debian\'s zlib from two callers, and a '
             'worker thread; %.1f CPU seconds of fixed work (scale %g), %d repetitions; each run '
             'paired with an unprofiled run just before it.  Method: '
             '[doc/bench.md](../../doc/bench.md#call-stacks-benchcallgraphpy).' % (
                 ctx.base_cpu or 0, ctx.scale, ctx.reps), '']
    for hz in ctx.rates:
        lines += ['## ~%d Hz (%d Hz asked)' % (round(hz, -3), hz), '',
                  '| variant | overhead % | samples | recorder CPU ms | read CPU ms | file KB '
                  '| complete | reach main/start | split error (points) | lost |',
                  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
        for v in ctx.variants:
            s = summ.get('%s@%d' % (v.name, hz))
            if not s:
                continue
            lines.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
                v.name, fmt_pct(s['overhead']), med(s['samples']),
                med(s['recorder_cpu'], 1e3), fmt_num(s.get('read_cpu'), '%.0f')
                if s.get('read_cpu') is None else '%.0f' % (s['read_cpu'] * 1e3),
                med(s['size'], 1e-3),
                '-' if s.get('complete') is None or s.get('reach') is None else
                '%.2f %%' % (100 * s['complete']),
                '-' if s['reach'] is None else '%.1f %%' % (100 * s['reach']),
                fmt_num(s['split_error'], '%.1f'), med(s['lost'])))
        lines.append('')
    per_rows = [v for v in ctx.variants if summ.get('%s@per-sample' % v.name)]
    lines += [] if not per_rows else ['Per sample (the slope between the two rates, so that fixed costs cancel; size per '
              '100k samples: profil from one long run of ~100k samples at %d Hz, perf from the '
              'slope, its files grow linearly):' % RATES[-1], '',
              '| variant | recorder µs / sample | recorder fixed ms | read µs / sample '
              '| size / 100k samples |', '| --- | ---: | ---: | ---: | ---: |']
    for v in per_rows:
        p = summ['%s@per-sample' % v.name]
        long_ = summ.get('%s@long' % v.name)
        size = long_['size_per_100k'] if long_ else (p['bytes'] * 1e5 if p['bytes'] and
                                                     v.kind == 'perf' else None)
        lines.append('| %s | %s | %s | %s | %s |' % (
            v.name, fmt_num(p['recorder_us'], '%.1f'), fmt_num(p['recorder_fixed_ms'], '%.0f'),
            fmt_num(p['read_us'], '%.1f'),
            '-' if size is None else '%.2f MB%s' % (size / 1e6, ' (long run)' if long_ else '')))
    if per_rows:
        lines.append('')
    lines += ['Variants:', '']
    lines += ['- `%s`: %s' % (v.name, v.desc) for v in ctx.variants]
    lines += targets_md(ctx, summ)
    lines += ['', 'Ratios of median overheads (the target for -g: at most 1.5x the flat one):', '']
    for hz in ctx.rates:
        def ovh(name):
            s = summ.get('%s@%d' % (name, hz))
            return s['overhead']['median'] if s and s['overhead'] else None
        g, fp_, fb, bpf = ovh('profil-g'), ovh('profil-flat-perf'), ovh('profil-flat'), \
            ovh('profil-g-bpf')
        parts = []
        for flat, name in ((fp_, 'profil-flat-perf'), (fb, 'profil-flat')):
            if g is not None and flat is not None:
                parts.append('profil-g / %s = %.2f' % (name, g / flat) if flat > 0 else
                             '%s overhead <= 0' % name)
        if g is not None and bpf is not None:
            parts.append('profil-g-bpf - profil-g = %+.1f points' % (100 * (bpf - g)))
        lines.append('- %d Hz: %s' % (hz, '; '.join(parts) if parts else '-'))
    lines.append('')
    with open(path, 'w') as f:
        f.write('\n'.join(lines))


def targets_md(ctx, summ):
    """Issue 17's targets: the recorder's CPU per second of program CPU against perf dwarf's and
    the flat recorder's (in all, and beyond its fixed cost), the program's overhead with -g
    against flat, the tail, the in-kernel walk's cost."""
    def get(name, hz, key, stat='median'):
        s = summ.get('%s@%d' % (name, hz))
        return s[key][stat] if s and s.get(key) else None

    def ms(x):
        return '-' if x is None else '%.1f' % (1e3 * x)

    def spread(name, hz, key, scale=1e3, f='%.1f'):
        s = summ.get('%s@%d' % (name, hz))
        if not s or not s.get(key):
            return '-'
        v = s[key]
        return (f + ' [' + f + ', ' + f + ']') % (scale * v['median'], scale * v['min'],
                                                  scale * v['max'])
    load = getattr(ctx, 'load', None) or []
    lines = ['', '## Costs against the targets', '',
             'Load average (1 min) on this shared 2-vCPU machine during the run: %s.' % (
                 ', '.join('%.1f' % l[0] for l in load) if load else 'not recorded'), '',
             'Fixed cost: the recorder\'s CPU around the same program doing almost nothing '
             '(scale %g, 997 Hz), median [min, max] ms.  Per second of the program\'s own CPU '
             '(median ms/s [min, max]): the recorder\'s CPU in all, and beyond its fixed cost.  '
             'Tail: the program\'s last instruction (its truth written) to the profiler\'s exit, '
             'median [min, max] ms.' % FIXED_SCALE, '',
             '| variant | fixed ms | ' + ' | '.join('%d Hz: ms/s in all | beyond fixed | tail ms'
                                                  % hz for hz in ctx.rates) + ' |',
             '| --- | ---: |' + ' ---: | ---: | ---: |' * len(ctx.rates)]
    for v in ctx.variants:
        cells = [spread(v.name, 0, 'recorder_cpu')]
        for hz in ctx.rates:
            cells += [spread(v.name, hz, 'recorder_per_cpu'),
                      spread(v.name, hz, 'beyond_fixed_per_cpu'), spread(v.name, hz, 'tail')]
        lines.append('| %s | %s |' % (v.name, ' | '.join(cells)))
    lines += ['', 'Ratios of medians for `-g --clock bpf` (targets: recorder per second at most '
              '1/3 of perf dwarf\'s and 1.2x the flat recorder\'s; overhead within 1.1x of '
              'flat\'s at 9973 Hz; tail at most perf\'s):', '',
              '| rate | vs perf-dwarf: in all | beyond fixed | vs profil-flat: in all | '
              'beyond fixed | overhead vs flat | tail vs perf-dwarf |',
              '| --- | ---: | ---: | ---: | ---: | ---: | ---: |']
    for hz in ctx.rates:
        def ratio(key, a, b):
            x, y = get(a, hz, key), get(b, hz, key)
            return '-' if x is None or not y or y <= 0 else '%.2f' % (x / y)
        lines.append('| %d | %s | %s | %s | %s | %s | %s |' % (
            hz, ratio('recorder_per_cpu', 'profil-g-bpf', 'perf-dwarf'),
            ratio('beyond_fixed_per_cpu', 'profil-g-bpf', 'perf-dwarf'),
            ratio('recorder_per_cpu', 'profil-g-bpf', 'profil-flat'),
            ratio('beyond_fixed_per_cpu', 'profil-g-bpf', 'profil-flat'),
            ratio('overhead', 'profil-g-bpf', 'profil-flat'),
            ratio('tail', 'profil-g-bpf', 'perf-dwarf')))
    for hz in ctx.rates:
        s = summ.get('profil-g-bpf@%d' % hz)
        if not s or not s.get('cost'):
            continue
        share = s.get('kernel_share')
        rpw, fpw = s.get('reads_per_walk'), s.get('frames_per_walk')
        lines += ['', 'In-kernel walk at %d Hz: %s of the ticks walked in the kernel; %s user '
                  'frames and %s user memory reads per walk; cost per tick (ns, the program\'s '
                  'own histograms, 25 ns buckets, all repetitions): the walk (tick to the end of '
                  'the user walk) and the whole tick (also hashing, the tally, a new stack\'s '
                  'record), by user frames:' % (
                      hz, '-' if not share else '%.1f %%' % (100 * share['median']),
                      '-' if not fpw else '%.1f' % fpw['median'],
                      '-' if not rpw else '%.2f' % rpw['median']), '',
                  '| frames | ticks | walk median | p90 | p99 | tick median | p90 | p99 |',
                  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |']
        for name, q in s['cost'].items():
            t = (s.get('tick_cost') or {}).get(name)
            lines.append('| %s | %d | %.0f | %.0f | %.0f | %s |' % (
                name, q['n'], q['median'], q['p90'], q['p99'],
                '- | - | -' if not t else '%.0f | %.0f | %.0f' % (t['median'], t['p90'],
                                                                  t['p99'])))
    return lines


def from_json(path, out):
    """Write callgraph.md again from a saved callgraph.json (after a change of the tables)."""
    with open(path) as f:
        d = json.load(f)
    ctx = Ctx()
    names = {k.rsplit('@', 1)[0] for k in d['raw']}
    ctx.variants = [v for v in VARIANTS if v.name in names]
    ctx.rates = tuple(sorted({int(k.rsplit('@', 1)[1]) for k in d['raw']} - {0}))
    ctx.load = d.get('load', [])
    ctx.scale, ctx.reps = d['scale'], d['reps']
    runs = {(k.rsplit('@', 1)[0], int(k.rsplit('@', 1)[1])): v for k, v in d['raw'].items()}
    bases = [r['base_inproc'] for rs in runs.values() for r in rs if r.get('base_inproc')]
    ctx.base_cpu = statistics.median(bases) if bases else None
    summ = summarise(ctx, runs, d.get('long', {}))
    write_md(ctx, summ, os.path.join(out, 'callgraph.md'))
    return summ


class Ctx:
    pass


def bench_callgraph(build, out, quick=False, smoke=False, reps=None, variants=None):
    """Run the section; returns the raw runs and the summary (for results.json)."""
    ctx = Ctx()
    ctx.build = os.path.abspath(build)
    ctx.profil = os.path.join(ctx.build, 'profil')
    ctx.workload = os.path.join(ctx.build, 'bench', 'wl_stacks')
    ctx.stack_query = os.path.join(ctx.build, 'tests', 'tools', 'stack_query')
    for p in (ctx.profil, ctx.workload, ctx.stack_query):
        if not os.path.exists(p):
            return {'skipped': '%s is not built' % p}
    have_perf = shutil.which('perf') is not None
    ctx.variants = [v for v in VARIANTS if v.kind != 'perf' or have_perf]
    if variants:
        ctx.variants = [v for v in ctx.variants if v.name in variants]
    ctx.rates = RATES
    if smoke:
        ctx.scale, ctx.reps, ctx.big_scale, ctx.rates = 0.1, 1, 0, (997,)
    elif quick:
        ctx.scale, ctx.reps, ctx.big_scale = 0.5, 2, 3
    else:
        ctx.scale, ctx.reps, ctx.big_scale = 1.0, 5, 10
    if reps:
        ctx.reps = reps
    os.makedirs(out, exist_ok=True)
    ctx.tmp = tempfile.mkdtemp(prefix='callgraph-', dir=out)
    probe = os.path.join(ctx.tmp, 'probe.data')
    if subprocess.run([ctx.profil, 'record', '-q', '--clock', 'bpf', '-o', probe, '--', 'true'],
                      capture_output=True).returncode != 0:
        ctx.variants = [v for v in ctx.variants if v.name != 'profil-g-bpf']
    try:
        runs, big = run_all(ctx)
        bases = [r['base_inproc'] for rs in runs.values() for r in rs if r.get('base_inproc')]
        ctx.base_cpu = statistics.median(bases) if bases else None
        summ = summarise(ctx, runs, big)
        write_md(ctx, summ, os.path.join(out, 'callgraph.md'))
    finally:
        shutil.rmtree(ctx.tmp, ignore_errors=True)
    return {'summary': summ, 'raw': {'%s@%d' % k: v for k, v in runs.items()}, 'long': big,
            'scale': ctx.scale, 'reps': ctx.reps, 'load': ctx.load}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--out', default=os.path.join(HERE, 'results'))
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--smoke', action='store_true', help='structure only: tiny, one rate, once')
    ap.add_argument('--reps', type=int)
    ap.add_argument('--variants', help='comma-separated subset of the variants')
    ap.add_argument('--from-json', metavar='FILE',
                    help='only write callgraph.md again from a callgraph.json of an earlier run')
    args = ap.parse_args()
    if args.from_json:
        from_json(args.from_json, args.out)
        return 0
    res = bench_callgraph(args.build, args.out, args.quick, args.smoke, args.reps,
                       args.variants.split(',') if args.variants else None)
    with open(os.path.join(args.out, 'callgraph.json'), 'w') as f:
        json.dump(res, f, indent=1, default=str)
    if 'skipped' in res:
        log('callgraph: skipped: %s' % res['skipped'])
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
