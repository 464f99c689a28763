#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Off-CPU time: what `profil record --off-cpu` costs a program that switches
all the time, side by side with libbpf-tools' offcputime and
`perf record -e cs -c 1 -g`, in one run.

    offcpu.py --build build --out bench/results [--quick] [--reps N]

Part of `make bench` (bench.py runs it; results in offcpu.md and
results.json).  The workload is build/bench/wl_pingpong
(bench/workloads/wl_pingpong.c): two threads bounce a byte over two pipes
and print their round trips per second every 0.25 s.  A peer that attaches
to a running process (offcputime -p, perf record -p) needs time to start:
every variant is judged on the windows after WARMUP seconds, and every
repetition runs each variant paired with an unprofiled run just before it,
in an order rotated every repetition (this machine is shared: whole-process
timings vary by 15 % from run to run).  Metrics:
  kept       the variant's round trips/s over its paired unprofiled run's
  recorder   CPU of the profiler itself (profil: the tree's wait4 rusage
             less the workload's own getrusage; a peer: its own wait4), s
             per second of the run
  rss        the profiler's peak resident memory (VmHWM), MiB
  ns/switch  the BPF program's own time per sched_switch it ran at (every
             switch of the machine: the kernel's bpf_stats, enabled for the
             measurement and restored), profil's and offcputime's alike: a
             figure the machine's load does not move as it moves throughput
Needs root (BPF for profil's off-CPU clock and offcputime); a variant that
cannot run here is reported as skipped, with why.
"""

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WARMUP = 1.25


def windows(text):
    """The windows after WARMUP: their round trips per second of wall time and per second of
    the workload's own CPU time; and the workload's own CPU."""
    rates, cpurates, cpu = [], [], None
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 3 and f[0] == 'window' and float(f[1]) >= WARMUP:
            rates.append(float(f[2]))
            if len(f) >= 4 and float(f[3]) > 0:
                cpurates.append(float(f[3]))
        elif len(f) == 3 and f[0] == 'cpu':
            cpu = float(f[1]) + float(f[2])
    return rates, cpurates, cpu


def vm_hwm(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def run_profil(argv, secs, outf):
    """profil record ... -- workload: the tree's CPU from wait4, the recorder's peak RSS."""
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 2)
        fd = os.open(outf, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.execvp(argv[0], argv)
    peak = 0.0
    while True:
        got, status, ru = os.wait4(pid, os.WNOHANG)
        if got:
            break
        peak = max(peak, vm_hwm(pid))
        time.sleep(0.05)
    return os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, peak, \
        time.monotonic() - t0


def run_attached(peer_argv, work, secs, tmp):
    """The workload, with a peer attached to it (-p PID) until it ends."""
    out = os.path.join(tmp, 'work.out')
    with open(out, 'w') as fo:
        w = subprocess.Popen([work, str(secs)], stdout=fo)
        argv = [a.replace('{PID}', str(w.pid)) for a in peer_argv]
        peer = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                preexec_fn=os.setpgrp)
        peak = 0.0
        while w.poll() is None:
            peak = max(peak, vm_hwm(peer.pid))
            time.sleep(0.05)
        peer.send_signal(signal.SIGINT)
        try:
            _, status, ru = os.wait4(peer.pid, 0)
        except ChildProcessError:
            status, ru = 0, None
        err = peer.stderr.read() if peer.stderr else ''
    with open(out) as f:
        text = f.read()
    cpu = ru.ru_utime + ru.ru_stime if ru else None
    return text, cpu, peak, err


class Variant:
    def __init__(self, name, label, kind, argv):
        self.name, self.label, self.kind, self.argv = name, label, kind, argv


def variants(build, tmp):
    profil = os.path.join(build, 'profil')
    data = os.path.join(tmp, 'off.data')
    vs = [
        Variant('profil_g', '`profil record --off-cpu -g`', 'profil',
                [profil, 'record', '-q', '--off-cpu', '-g', '-o', data, '--']),
        Variant('profil_flat', '`profil record --off-cpu`', 'profil',
                [profil, 'record', '-q', '--off-cpu', '-o', data, '--']),
        Variant('profil_g_noreuse', '`profil record --off-cpu -g`, every switch-out walked',
                'profil_noreuse',
                [profil, 'record', '-q', '--off-cpu', '-g', '-o', data, '--']),
        Variant('profil_g_thread', '`profil record --off-cpu -g --sample-by thread` '
                '(per-thread sampling events)', 'profil',
                [profil, 'record', '-q', '--off-cpu', '-g', '--sample-by', 'thread', '-o', data,
                 '--']),
        Variant('profil_cpu_g', '`profil record -g` (CPU only, per-thread events)', 'profil',
                [profil, 'record', '-q', '-g', '-o', data, '--']),
        Variant('profil_cpu_g_cgroup', '`profil record -g --sample-by cgroup` (CPU only)',
                'profil',
                [profil, 'record', '-q', '-g', '--sample-by', 'cgroup', '-o', data, '--']),
    ]
    if shutil.which('offcputime'):
        vs.append(Variant('offcputime', 'libbpf-tools `offcputime -p PID`', 'attach',
                          ['offcputime', '-p', '{PID}']))
    if shutil.which('perf'):
        vs.append(Variant('perf_cs', '`perf record -e cs -c 1 -g -p PID`', 'attach',
                          ['perf', 'record', '-q', '-e', 'cs', '-c', '1', '-g', '-o',
                           os.path.join(tmp, 'perf.data'), '-p', '{PID}']))
        # what per-thread sampling events cost at each switch by themselves (no off-CPU)
        vs.append(Variant('perf_taskclock', '`perf record -e task-clock -F 997 -p PID` '
                          '(CPU only)', 'attach',
                          ['perf', 'record', '-q', '-e', 'task-clock', '-F', '997', '-o',
                           os.path.join(tmp, 'perf.data'), '-p', '{PID}']))
    return vs


def one(v, work, secs, tmp):
    """(rates, CPU rates, recorder CPU s, rss MiB, error) of one run of variant v."""
    if v.kind in ('profil', 'profil_noreuse'):
        env_set = v.kind == 'profil_noreuse'
        if env_set:
            os.environ['PROFIL_OFFCPU_NO_REUSE'] = '1'
        outf = os.path.join(tmp, 'work.out')
        argv = v.argv + [work, str(secs)]
        try:
            rc, tree, peak, _ = run_profil(argv, secs, outf)
        finally:
            os.environ.pop('PROFIL_OFFCPU_NO_REUSE', None)
        with open(outf) as f:
            rates, cpurates, own = windows(f.read())
        if rc != 0 or not rates:
            return None, None, None, None, 'exit %d' % rc
        return rates, cpurates, (tree - own) if own is not None else None, peak, None
    text, cpu, peak, err = run_attached(v.argv, work, secs, tmp)
    rates, cpurates, _ = windows(text)
    if not rates or cpu is None:
        return None, None, None, None, (err or 'no output').strip().splitlines()[-1:]
    return rates, cpurates, cpu, peak, None


BPF_STATS = '/proc/sys/kernel/bpf_stats_enabled'


def prog_cost(name):
    """run_time_ns / run_cnt of the loaded BPF programs called name, summed."""
    try:
        progs = json.loads(subprocess.run(['bpftool', '-j', 'prog', 'show'],
                                          capture_output=True, text=True).stdout)
    except (OSError, ValueError):
        return None
    cnt = sum(p.get('run_cnt', 0) for p in progs if p.get('name') == name)
    ns = sum(p.get('run_time_ns', 0) for p in progs if p.get('name') == name)
    return ns / cnt if cnt else None


def measure_cost(v, work, secs, tmp):
    """ns per switch of variant v's sched_switch program, read 2/3 into a run."""
    prog = {'attach': 'sched_switch'}.get(v.kind, 'offcpu_switch')
    if v.name in ('perf_cs', 'perf_taskclock', 'profil_cpu_g', 'profil_cpu_g_cgroup') or \
            not shutil.which('bpftool'):
        return None
    try:
        with open(BPF_STATS) as f:
            old = f.read().strip()
        with open(BPF_STATS, 'w') as f:
            f.write('1')
    except OSError:
        return None
    got = []

    def sample():
        time.sleep(secs * 2 / 3)
        got.append(prog_cost(prog))
    import threading
    t = threading.Thread(target=sample)
    t.start()
    try:
        one(v, work, secs, tmp)
    finally:
        t.join()
        with open(BPF_STATS, 'w') as f:
            f.write(old)
    return got[0] if got else None


def quartiles(xs):
    """(25th, 75th) percentiles of xs (the middle half of the repetitions)."""
    if len(xs) < 4:
        return min(xs), max(xs)
    q = statistics.quantiles(xs, n=4)
    return q[0], q[2]


def loadavg():
    with open('/proc/loadavg') as f:
        return float(f.read().split()[0])


def bench_offcpu(build, out, quick=False, reps=None, log=print, pin=True, only=None, secs=None):
    work = os.path.join(build, 'bench', 'wl_pingpong')
    if not os.path.exists(work):
        log('offcpu: %s missing (make bench-build)' % work)
        return {}
    secs = secs or (3.0 if quick else 4.0)
    if pin:  # both threads on the last CPU (wl_pingpong.c says why)
        os.environ['PINGPONG_CPU'] = str(max(os.cpu_count() - 1, 0))
    reps = reps or (2 if quick else 6)
    tmp = tempfile.mkdtemp(prefix='offcpu-bench.')
    vs = [v for v in variants(build, tmp) if not only or v.name in only]
    res = {v.name: {'kept': [], 'kept_cpu': [], 'recorder': [], 'rss': [], 'rate': [],
                    'base': [], 'ns_switch': [], 'error': None} for v in vs}
    loads = []
    for r in range(reps):
        loads.append(loadavg())
        order = vs[r % len(vs):] + vs[:r % len(vs)]
        for v in order:
            base, cbase, _ = windows(subprocess.run([work, str(secs)], capture_output=True,
                                                    text=True).stdout)
            rates, cpurates, rec, rss, err = one(v, work, secs, tmp)
            e = res[v.name]
            if err or not base:
                e['error'] = str(err)
                continue
            b, g = statistics.median(base), statistics.median(rates)
            e['kept'].append(g / b)
            if cbase and cpurates:
                e['kept_cpu'].append(statistics.median(cpurates) / statistics.median(cbase))
            e['rate'].append(g)
            e['base'].append(b)
            if rec is not None:
                e['recorder'].append(rec / secs)
            e['rss'].append(rss)
            log('offcpu: rep %d %s: %.0f vs %.0f round trips/s (%.0f %%), per CPU second %.0f %%'
                % (r + 1, v.name, g, b, 100 * g / b,
                   100 * e['kept_cpu'][-1] if e['kept_cpu'] else float('nan')))
    for r in range(2 if quick else 3):
        for v in vs:
            c = measure_cost(v, work, secs, tmp)
            if c is not None:
                res[v.name]['ns_switch'].append(c)
                log('offcpu: %s: %.0f ns per switch in its BPF program' % (v.name, c))
    shutil.rmtree(tmp, ignore_errors=True)
    os.environ.pop('PINGPONG_CPU', None)
    write_md(out, vs, res, secs, reps, pin, loads)
    return res


def med(xs):
    return statistics.median(xs) if xs else float('nan')


def write_md(out, vs, res, secs, reps, pin, loads):
    lines = ['# Off-CPU time: the cost at every context switch', '',
             'Workload: `wl_pingpong` (bench/workloads/wl_pingpong.c), two threads bouncing a '
             'byte over two pipes for %.0f s%s; each variant paired with an unprofiled run '
             'just before it, %d repetitions in rotated order, judged on the 0.25 s windows '
             'after %.2f s (an attaching peer needs time to start).  Generated by '
             'bench/offcpu.py.'
             % (secs, ', both threads on one CPU ($PINGPONG_CPU: every round trip is four '
                'switches there)' if pin else '', reps, WARMUP), '',
             '| variant | kept per CPU second (median) | middle half | range | kept, wall '
             '(median) | middle half | round trips/s (median) | unprofiled | profiler CPU, '
             's per s | profiler peak RSS, MiB | BPF ns per switch |',
             '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for v in vs:
        e = res[v.name]
        if not e['kept'] or not e['kept_cpu']:
            lines.append('| %s | skipped: %s | | | | | | | | | |' % (v.label, e['error']))
            continue
        c1, c3 = quartiles(e['kept_cpu'])
        q1, q3 = quartiles(e['kept'])
        lines.append('| %s | %.0f %% | %.0f-%.0f %% | %.0f-%.0f %% | %.0f %% | %.0f-%.0f %% | '
                     '%.0f | %.0f | %.3f | %.1f | %s |' % (
            v.label, 100 * med(e['kept_cpu']), 100 * c1, 100 * c3,
            100 * min(e['kept_cpu']), 100 * max(e['kept_cpu']),
            100 * med(e['kept']), 100 * q1, 100 * q3,
            med(e['rate']), med(e['base']), med(e['recorder']), med(e['rss']),
            '%.0f' % med(e['ns_switch']) if e['ns_switch'] else '-'))
    lines += ['', 'Load average at each repetition\'s start: median %.1f, %.1f-%.1f; when written: '
              '%.1f (the machine is shared: throughput swings with the other jobs; ns per '
              'switch does not).' % (med(loads), min(loads), max(loads), loadavg()),
              '', 'kept per CPU second: the variant\'s round trips per second of the workload\'s '
              'own CPU time (CLOCK_PROCESS_CPUTIME_ID over each window) over its paired '
              'unprofiled run\'s: what a round trip costs, whichever share of the CPU the '
              'machine\'s other jobs left it (a profiler\'s work at the switches is done in the '
              'threads\' time); kept, wall: the same per second of wall time, which the other '
              'jobs on the pinned CPU move by a factor of 2-5 from run to run.  '
              'profil\'s CPU is the recorder\'s own (the tree\'s CPU less the workload\'s); '
              'the BPF programs\' time in the kernel is the workload\'s (it runs at its '
              'switches) and shows in kept.  The `-g` variants also sample CPU time at '
              '997 Hz with dwarf stacks: profil\'s `--off-cpu` ones (as root) by per-CPU '
              'events of a cgroup it puts the workload in (`--sample-by auto`), the '
              '`--sample-by thread` one and `-g` alone by per-thread events, inherited '
              '(which the kernel switches at every context switch).', '']
    with open(os.path.join(out, 'offcpu.md'), 'w') as f:
        f.write('\n'.join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build')
    ap.add_argument('--out', default=os.path.join(HERE, 'results'))
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--reps', type=int)
    ap.add_argument('--no-pin', action='store_true', help='let the scheduler place the threads')
    ap.add_argument('--variants', help='comma-separated names (default: all): profil_g, '
                    'profil_flat, profil_g_noreuse, profil_g_thread, profil_cpu_g, '
                    'profil_cpu_g_cgroup, offcputime, perf_cs, perf_taskclock')
    ap.add_argument('--secs', type=float, help='seconds per run (default 4, --quick 3)')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    res = bench_offcpu(os.path.abspath(args.build), os.path.abspath(args.out), args.quick,
                       args.reps, pin=not args.no_pin,
                       only=args.variants.split(',') if args.variants else None, secs=args.secs)
    print(json.dumps({k: {'kept': med(v['kept']), 'kept_cpu': med(v['kept_cpu']),
                          'recorder': med(v['recorder']),
                          'rss': med(v['rss']), 'ns_switch': med(v['ns_switch']),
                          'error': v['error']}
                      for k, v in res.items()}, indent=1))
    return 0


if __name__ == '__main__':
    sys.exit(main())
