#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The profil benchmark: accuracy, calibration and overhead of PC-sampling
profilers on workloads whose true profile is known by construction.

    bench.py --build build --out bench/results [--quick] [--smoke DIR]

A *profiler* is an adapter (a subclass of Profiler below) that turns a
workload command into a profiled command and, afterwards, into a Profile:
{function -> samples}, {tid -> samples} (or None), samples, stated period,
lost.  Adding a profiler is one small class plus one line in profilers().
See doc/bench.md for the method and the metric definitions.
"""

import argparse
import bisect
import glob
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# ---------------------------------------------------------------- symbols


class Symbols:
    """ELF symbol tables (binutils nm/readelf), cached per object file.

    An address inside a known function gives its name; else one inside an
    unwind (.eh_frame FDE) range gives '<object>+0x<range start>', so that
    stripped programs can still be compared function by function; else
    '<object>+0x<4 KiB page>'."""

    def __init__(self):
        self.cache = {}

    def _load(self, path):
        syms, loads = [], []
        for dyn in ([], ['-D']):
            try:
                out = subprocess.run(['nm', '-S', '-n', '--defined-only'] + dyn + [path],
                                     capture_output=True, text=True, check=False).stdout
            except OSError:
                out = ''
            for line in out.splitlines():
                f = line.split()
                if len(f) == 4 and f[2] in 'tTwWiI':
                    syms.append((int(f[0], 16), int(f[1], 16), f[3]))
                elif len(f) == 3 and f[1] in 'tTwWiI':
                    syms.append((int(f[0], 16), 0, f[2]))
            if syms:
                break
        syms.sort()
        # a symbol without a size extends to the next symbol
        fixed = []
        for i, (a, s, n) in enumerate(syms):
            if s == 0:
                s = (syms[i + 1][0] - a) if i + 1 < len(syms) else 0
            fixed.append((a, s, n.split('@')[0]))
        try:
            out = subprocess.run(['readelf', '-lW', path], capture_output=True, text=True,
                                 check=False).stdout
        except OSError:
            out = ''
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == 'LOAD':
                loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
        # code no symbol covers is named by its unwind (FDE) range, as profil does
        fdes = []
        try:
            out = subprocess.run(['readelf', '--debug-dump=frames', path], capture_output=True,
                                 text=True, check=False).stdout
        except OSError:
            out = ''
        for m in re.finditer(r' FDE .*?pc=([0-9a-f]+)\.\.([0-9a-f]+)', out):
            fdes.append((int(m.group(1), 16), int(m.group(2), 16)))
        fdes.sort()
        return ([a for a, _, _ in fixed], fixed, loads, fdes)

    def _get(self, path):
        if path not in self.cache:
            self.cache[path] = self._load(path)
        return self.cache[path]

    def by_vaddr(self, path, vaddr):
        addrs, syms, _, fdes = self._get(path)
        i = bisect.bisect_right(addrs, vaddr) - 1
        if i >= 0:
            a, s, n = syms[i]
            if a <= vaddr < a + s:
                return n
        i = bisect.bisect_right(fdes, (vaddr, float('inf'))) - 1
        if i >= 0 and fdes[i][0] <= vaddr < fdes[i][1]:
            return '%s+0x%x' % (os.path.basename(path), fdes[i][0])
        return '%s+0x%x' % (os.path.basename(path), vaddr & ~0xfff)

    def by_offset(self, path, off):
        _, _, loads, _ = self._get(path)
        for foff, vaddr, filesz in loads:
            if foff <= off < foff + filesz:
                return self.by_vaddr(path, off - foff + vaddr)
        return self.by_vaddr(path, off)


SYMBOLS = Symbols()


def special_object(path):
    """Name for samples in objects that have no file to symbolise."""
    if not path or path.startswith('//anon') or path == '[anon]':
        return '[anon]'
    if path.startswith('[kernel') or path.startswith('[guest.kernel'):
        return '[kernel]'
    if path.startswith('['):
        return path.split(']')[0] + ']'
    if not os.path.isfile(path):
        return os.path.basename(path) + ':?'
    return None

# ---------------------------------------------------------------- workloads


class Workload:
    def __init__(self, name, desc, argv, pg_argv=None, truth=True, stdout=None):
        self.name, self.desc, self.argv, self.pg_argv = name, desc, argv, pg_argv
        self.truth, self.stdout = truth, stdout
        self.exe = argv[0]


def make_text_data(path, megabytes):
    """Deterministic, compressible text: random words from a fixed vocabulary."""
    rng = random.Random(20261122)
    vocab = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(2, 10)))
             for _ in range(4000)]
    lines, size = [], 0
    while size < megabytes * 1000000:
        line = ' '.join(rng.choice(vocab) for _ in range(12)) + ' %d\n' % rng.randint(0, 99999)
        lines.append(line)
        size += len(line)
    with open(path, 'w') as f:
        f.write(''.join(lines))


def workloads(ctx):
    b = ctx.bench_build
    wl = [
        Workload('funcs', 'one thread, three functions about 50/30/20 %',
                 [b + '/wl_funcs'], [b + '/wl_funcs.pg']),
        Workload('threads', 'four threads with 40/30/20/10 % of the work',
                 [b + '/wl_threads'], [b + '/wl_threads.pg']),
        Workload('shlib', 'hot time split between the program (40 %) and libbenchlib.so (60 %)',
                 [b + '/wl_shlib'], [b + '/wl_shlib.pg']),
        Workload('forkexec', 'a parent that forks+execs 40 short CPU-bound children',
                 [b + '/wl_forkexec']),
    ]
    zstd = shutil.which('zstd')
    if zstd and not ctx.smoke:
        data = os.path.join(ctx.tmp, 'zstd-input.txt')
        if not os.path.exists(data):
            make_text_data(data, 24 * ctx.scale)
        wl.append(Workload('zstd', 'Debian\'s zstd -6 compressing generated text (no ground truth: '
                           'reference is perf at 19997 Hz)',
                           [zstd, '-q', '-6', '-T1', '-c', data], truth=False,
                           stdout='/dev/null'))
    return wl

# ---------------------------------------------------------------- running


def run_tree(argv, env, cwd, stdout, stderr):
    """Run argv; returns (status, CPU seconds of the whole tree, wall seconds).

    The CPU time is wait4()'s rusage: the process plus every descendant it
    waited for (threads, children, a profiler parent's own work), user+sys."""
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(cwd)
            fd = os.open(stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            fd = os.open(stderr, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            os.execvpe(argv[0], argv, env)
        except OSError as e:
            os.write(2, ('bench: cannot run %s: %s\n' % (argv[0], e)).encode())
        os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    return os.waitstatus_to_exitcode(status), ru.ru_utime + ru.ru_stime, wall


class Profile:
    """What a profiler reports for one run."""

    def __init__(self, functions, threads, samples, period, lost=None):
        self.functions = functions  # name -> samples
        self.threads = threads      # tid -> samples, or None when the profiler has none
        self.samples = samples      # all samples, attributed or not
        self.period = period        # stated seconds of CPU per sample
        self.lost = lost            # samples the profiler says it lost, None if unknown


def add(d, k, v):
    d[k] = d.get(k, 0) + v

# ---------------------------------------------------------------- profilers


class Profiler:
    """Adapter base.  name is unique; family groups rates in charts; hz is
    the nominal rate (None: the profiler's default)."""
    family = None
    hz = None
    threads = False

    def __init__(self):
        self.name = self.family

    def unavailable(self, ctx):
        """None, or one sentence saying why this profiler cannot run here."""
        return None

    def unsupported(self, wl):
        """None, or why this profiler does not apply to workload wl."""
        return None

    def command(self, ctx, wl, tmp):
        """(argv, extra environment) of the profiled run."""
        return wl.argv, {}

    def collect(self, ctx, wl, tmp):
        """The Profile of the run that just ended in directory tmp."""
        raise NotImplementedError


class Baseline(Profiler):
    family = 'none'

    def collect(self, ctx, wl, tmp):
        return None


def parse_shim_files(pattern):
    """Histograms written by bench/shim/profil_shim.c, one file per process.

    Returns {function: samples}, binned samples, summed libprofil stats (the
    libprofil build only) and the stated rate.  A process whose stats count
    fewer samples than its bins hold is counted by its bins."""
    functions, samples, stats, hz = {}, 0, {}, 0
    for path in glob.glob(pattern):
        binned, fstats = 0, {}
        with open(path) as f:
            exe = f.readline().split(' ', 1)[1].strip()
            hdr = f.readline().split()
            hz = int(hdr[hdr.index('hz') + 1])
            for line in f:
                fs = line.split()
                if fs[0] == 'stats':
                    fstats = {k: int(v) for k, v in zip(fs[1::2], fs[2::2])}
                    continue
                n = int(fs[1])
                add(functions, SYMBOLS.by_vaddr(exe, int(fs[0])), n)
                binned += n
        samples += binned
        if fstats:
            fstats['samples'] = max(fstats.get('samples', 0), binned)
            for k, v in fstats.items():
                add(stats, k, v) if k != 'period_us' else stats.__setitem__(k, v)
    return functions, samples, stats, hz


class GlibcProfil(Profiler):
    """glibc's profil() over the main executable, via an LD_PRELOAD shim."""
    family = 'glibc-profil'
    hz = 100

    def unavailable(self, ctx):
        if not os.path.exists(ctx.shim):
            return 'the shim %s is not built' % ctx.shim

    def command(self, ctx, wl, tmp):
        return wl.argv, {'LD_PRELOAD': ctx.shim,
                         'BENCH_GLIBC_PROFIL_OUT': os.path.join(tmp, 'glibc-profil')}

    def collect(self, ctx, wl, tmp):
        functions, samples, _, hz = parse_shim_files(os.path.join(tmp, 'glibc-profil.*'))
        return Profile(functions, None, samples, 1.0 / (hz or 100), None)


class Gprof(Profiler):
    """gprof on the -pg build; flat profile from `gprof -b -p`."""
    family = 'gprof'
    hz = 100

    def unavailable(self, ctx):
        if not shutil.which('gprof'):
            return 'gprof (binutils) is not installed'

    def unsupported(self, wl):
        if not wl.pg_argv:
            return 'no -pg build of this workload'

    def command(self, ctx, wl, tmp):
        return wl.pg_argv, {'GMON_OUT_PREFIX': os.path.join(tmp, 'gmon.out')}

    def collect(self, ctx, wl, tmp):
        functions, samples, period = {}, 0, 0.01
        for path in glob.glob(os.path.join(tmp, 'gmon.out*')):
            out = subprocess.run(['gprof', '-b', '-p', wl.pg_argv[0], path], capture_output=True,
                                 text=True, check=False).stdout
            m = re.search(r'Each sample counts as ([0-9.]+) seconds', out)
            if m:
                period = float(m.group(1))
            for line in out.splitlines():
                f = line.split()
                # %time cumulative self [calls self/call total/call] name
                if len(f) >= 4 and re.match(r'^[0-9.]+$', f[0]) and re.match(r'^[0-9.]+$', f[2]):
                    n = int(round(float(f[2]) / period))
                    add(functions, f[-1], n)
                    samples += n
        return Profile(functions, None, samples, period, None)


def parse_gperf_profile(path):
    """gperftools' legacy CPU profile: 64-bit words, then /proc/self/maps."""
    with open(path, 'rb') as f:
        data = f.read()
    n = len(data) // 8
    w = memoryview(data[:n * 8]).cast('Q')
    if n < 5 or w[0] != 0 or w[1] != 3:
        return None
    period_us, i, pcs = w[3], 2 + w[1], {}
    while i + 2 <= n:
        count, depth = w[i], w[i + 1]
        if count == 0 and depth == 1 and i + 2 < n and w[i + 2] == 0:
            i += 3
            break
        if depth > 0:
            add(pcs, w[i + 2], count)
        i += 2 + depth
    maps = []
    for line in data[i * 8:].decode(errors='replace').splitlines():
        f = line.split()
        if len(f) >= 5 and '-' in f[0]:
            lo, hi = (int(x, 16) for x in f[0].split('-'))
            maps.append((lo, hi, int(f[2], 16), f[5] if len(f) > 5 else ''))
    return period_us, pcs, maps


def symbolise_maps(pc, maps):
    for lo, hi, off, path in maps:
        if lo <= pc < hi:
            name = special_object(path)
            return name or SYMBOLS.by_offset(path, pc - lo + off)
    return '[unknown]'


class Gperftools(Profiler):
    """gperftools CPU profiler preloaded into the unmodified program."""
    family = 'gperftools'

    def __init__(self, hz=None):
        self.hz = hz
        self.name = 'gperftools' if hz is None else 'gperftools-%d' % hz

    def unavailable(self, ctx):
        if not ctx.libprofiler:
            return 'libprofiler.so (libgoogle-perftools-dev) is not installed'

    def command(self, ctx, wl, tmp):
        env = {'LD_PRELOAD': ctx.libprofiler, 'CPUPROFILE': os.path.join(tmp, 'cpu.prof')}
        if self.hz:
            env['CPUPROFILE_FREQUENCY'] = str(self.hz)
        return wl.argv, env

    def collect(self, ctx, wl, tmp):
        functions, samples, period = {}, 0, 0.01
        for path in glob.glob(os.path.join(tmp, 'cpu.prof*')):
            parsed = parse_gperf_profile(path)
            if not parsed:
                continue
            period_us, pcs, maps = parsed
            period = period_us * 1e-6
            for pc, n in pcs.items():
                add(functions, symbolise_maps(pc, maps), n)
                samples += n
        return Profile(functions, None, samples, period, None)


PERF_SAMPLE = re.compile(r'^\s*(-?\d+)/(\d+)\s+([0-9a-f]+)\s+\((.*)\)\s*$')
PERF_MMAP = re.compile(r'PERF_RECORD_MMAP2? (-?\d+)/-?\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ '
                       r'(0x[0-9a-f]+|0)[ \]].*?\]: \S+ (.*)$')
PERF_LOST = re.compile(r'PERF_RECORD_LOST.*?lost:? *(\d+)', re.I)


def parse_perf_script(text):
    """perf script --show-mmap-events --show-lost-events -F pid,tid,ip,dso."""
    maps, functions, threads, samples, lost = {}, {}, {}, 0, 0
    for line in text.splitlines():
        if 'PERF_RECORD_MMAP' in line:
            m = PERF_MMAP.search(line)
            if m:
                maps.setdefault(m.group(5).strip(), []).append(
                    (int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)))
            continue
        if 'PERF_RECORD_LOST' in line:
            m = PERF_LOST.search(line)
            lost += int(m.group(1)) if m else 0
            continue
        m = PERF_SAMPLE.match(line)
        if not m:
            continue
        tid, ip, dso = int(m.group(2)), int(m.group(3), 16), m.group(4)
        name = special_object(dso)
        if name is None:
            name = '%s:?' % os.path.basename(dso)
            for start, length, pgoff in reversed(maps.get(dso, [])):
                if start <= ip < start + length:
                    name = SYMBOLS.by_offset(dso, ip - start + pgoff)
                    break
        add(functions, name, 1)
        add(threads, tid, 1)
        samples += 1
    return functions, threads, samples, lost


def perf_script(data):
    return subprocess.run(['perf', 'script', '-i', data, '--show-mmap-events',
                           '--show-lost-events', '-F', 'pid,tid,ip,dso'],
                          capture_output=True, text=True, check=False).stdout


class Perf(Profiler):
    """perf record -e task-clock -F hz; the perf process's CPU counts as overhead."""
    family = 'perf'
    threads = True

    def __init__(self, hz, name=None):
        self.hz = hz
        self.name = name or 'perf-%d' % hz

    def unavailable(self, ctx):
        if not shutil.which('perf'):
            return 'perf (linux-perf) is not installed'
        if not ctx.perf_ok:
            return 'perf record -e task-clock does not work here'

    def command(self, ctx, wl, tmp):
        return ['perf', 'record', '-e', 'task-clock', '-F', str(self.hz), '-o',
                os.path.join(tmp, 'perf.data'), '--'] + wl.argv, {}

    def collect(self, ctx, wl, tmp):
        functions, threads, samples, lost = parse_perf_script(
            perf_script(os.path.join(tmp, 'perf.data')))
        return Profile(functions, threads, samples, 1.0 / self.hz, lost)


class ClockedProfiler(Profiler):
    """A profil variant named after its clock and rate: PREFIX-CLOCK-HZ."""
    prefix = ''

    def __init__(self, clock, hz):
        self.clock, self.hz = clock, hz
        self.family = '%s-%s' % (self.prefix, clock)
        self.name = '%s-%s-%d' % (self.prefix, clock, hz)


class LibprofilShim(ClockedProfiler):
    """libprofil's profil() over the main executable with one clock, via
    the same LD_PRELOAD shim as glibc's (built with -DUSE_LIBPROFIL)."""
    prefix = 'libprofil'

    def unavailable(self, ctx):
        if not os.path.exists(ctx.libprofil_shim):
            return ('libprofil has no profil_set_clock yet (no %s)'
                    % os.path.relpath(ctx.libprofil_shim, ROOT))

    def command(self, ctx, wl, tmp):
        return wl.argv, {'LD_PRELOAD': ctx.libprofil_shim, 'BENCH_LIBPROFIL_CLOCK': self.clock,
                         'BENCH_LIBPROFIL_HZ': str(self.hz),
                         'BENCH_LIBPROFIL_OUT': os.path.join(tmp, 'libprofil')}

    def collect(self, ctx, wl, tmp):
        functions, binned, stats, hz = parse_shim_files(os.path.join(tmp, 'libprofil.*'))
        samples = stats.get('samples', binned)
        if samples > binned:
            add(functions, '(outside the main executable)', samples - binned)
        period = stats['period_us'] * 1e-6 if stats.get('period_us') else 1.0 / (hz or self.hz)
        return Profile(functions, None, samples, period, stats.get('lost'))


class ProfilRecord(ClockedProfiler):
    """`profil record` + `profil report --format json` (the project's command).

    The option spelling is a template so that it can follow the command
    without code changes: $BENCH_PROFIL_RECORD and $BENCH_PROFIL_REPORT
    (Python format strings with {clock}, {hz} and {data})."""
    threads = True
    RECORD = 'record -q --clock {clock} --freq {hz} -o {data} --'
    REPORT = 'report --format json -i {data}'
    prefix = 'profil-record'

    def unavailable(self, ctx):
        if not os.path.exists(ctx.profil):
            return 'build/profil is not built'
        for sub in ('record', 'report'):
            r = subprocess.run([ctx.profil, sub, '--help'], capture_output=True, text=True)
            if r.returncode != 0:
                return '`profil %s` is not part of this build yet' % sub
        if self.clock == 'bpf':
            with tempfile.TemporaryDirectory() as d:
                r = subprocess.run([ctx.profil, 'record', '-q', '--clock', 'bpf', '-o',
                                    os.path.join(d, 'p.data'), '--', 'true'],
                                   capture_output=True, text=True)
            if r.returncode != 0:
                return 'the bpf clock cannot run here: %s' % r.stderr.strip()[:120]

    def _fmt(self, template, tmp):
        return template.format(clock=self.clock, hz=self.hz,
                               data=os.path.join(tmp, 'profil.data')).split()

    def command(self, ctx, wl, tmp):
        rec = os.environ.get('BENCH_PROFIL_RECORD', self.RECORD)
        return [ctx.profil] + self._fmt(rec, tmp) + wl.argv, {}

    def collect(self, ctx, wl, tmp):
        rep = os.environ.get('BENCH_PROFIL_REPORT', self.REPORT)
        out = subprocess.run([ctx.profil] + self._fmt(rep, tmp), capture_output=True, text=True,
                             check=False)
        if out.returncode != 0:
            raise RuntimeError('profil report failed: %s' % out.stderr.strip()[:200])
        return profile_from_profil_json(json.loads(out.stdout), self.hz)


PROFIL_RANGE = re.compile(r'^\[(.+)\+0x([0-9a-fA-F]+)\]$')


def profil_name(name, obj):
    """profil names code no symbol covers '[OBJECT+0xSTART]'; the bench
    names it by the unwind range (or 4 KiB page) that START falls in, so
    that both sides use the same key (see Symbols)."""
    m = PROFIL_RANGE.match(name)
    if not m:
        return name
    path = obj if obj and os.path.isfile(obj) else m.group(1)
    if os.path.isfile(path):
        return SYMBOLS.by_vaddr(path, int(m.group(2), 16))
    return '%s+0x%x' % (os.path.basename(path), int(m.group(2), 16) & ~0xfff)


def profile_from_profil_json(doc, hz):
    """The contract of `profil report --format json` (doc/report-json.md):
    top level samples, total_samples, lost, period_ns (CPU time one sample
    stands for), rate_hz (effective), processes[{pid, exe, functions[{name,
    object, samples, ...}], threads[{tid, comm, samples}]}]."""
    functions, threads = {}, {}
    for proc in doc.get('processes', []):
        for fn in proc.get('functions', []):
            add(functions, profil_name(fn['name'], fn.get('object')), int(fn['samples']))
        for th in proc.get('threads', []):
            tid = th.get('tid', th.get('id'))
            if tid is not None:
                add(threads, int(tid), int(th.get('samples', 0)))
    samples = max(int(doc.get('samples') or 0), int(doc.get('total_samples') or 0),
                  sum(functions.values()))
    if doc.get('period_ns'):
        period = doc['period_ns'] * 1e-9
    else:
        period = 1.0 / (doc.get('nominal_hz') or doc.get('rate_hz') or hz)
    return Profile(functions, threads, samples, period, doc.get('lost'))


def profilers(ctx):
    """Every profiler the bench knows, baseline first.  Rates ~1 kHz and
    ~10 kHz are off-round (997, 9973) so that no sampler runs in lock-step
    with the program."""
    lo, hi = 997, 9973
    ps = [Baseline(), GlibcProfil(), Gprof(), Gperftools(), Gperftools(lo), Gperftools(hi),
          Perf(lo), Perf(hi)]
    for clock in ('thread', 'itimer', 'perf'):
        ps += [LibprofilShim(clock, lo), LibprofilShim(clock, hi)]
    for clock in ('thread', 'itimer', 'perf', 'bpf'):
        ps += [ProfilRecord(clock, lo), ProfilRecord(clock, hi)]
    if ctx.quick:
        # under two minutes: one rate for the many libprofil variants
        ps = [p for p in ps if not (isinstance(p, Gperftools) and p.hz == lo) and
              not (isinstance(p, (LibprofilShim, ProfilRecord)) and p.hz == hi)]
    return ps

# ---------------------------------------------------------------- truth & metrics


def load_truth(path):
    """Sum the truth files of every process: path and path.child*."""
    functions, threads, total, files = {}, {}, 0.0, 0
    for p in [path] + sorted(glob.glob(path + '.*')):
        if not os.path.exists(p):
            continue
        with open(p) as f:
            doc = json.load(f)
        files += 1
        total += doc['process_cpu_seconds']
        for k, v in doc['functions'].items():
            add(functions, k, v)
        for t in doc['threads']:
            add(threads, int(t['tid']), t['seconds'])
    if not files:
        return None
    return {'functions': functions, 'threads': threads, 'cpu': total, 'processes': files}


def shares_vs_truth(measured, total, truth_fns, truth_cpu):
    """TVD over the truth's functions plus one bucket for everything else."""
    p = {k: v / truth_cpu for k, v in truth_fns.items()}
    p['(other)'] = max(0.0, 1.0 - sum(p.values()))
    q = {k: measured.get(k, 0) / total for k in truth_fns}
    q['(other)'] = max(0.0, 1.0 - sum(q.values()))
    return 0.5 * sum(abs(p[k] - q[k]) for k in p)


def tvd_counts(a, b):
    ta, tb = sum(a.values()), sum(b.values())
    if not ta or not tb:
        return None
    return 0.5 * sum(abs(a.get(k, 0) / ta - b.get(k, 0) / tb) for k in set(a) | set(b))


def thread_error(measured, total, truth_threads, truth_cpu):
    keys = set(measured) | set(truth_threads)
    return 100.0 * max(abs(measured.get(k, 0) / total - truth_threads.get(k, 0) / truth_cpu)
                       for k in keys)


def metrics(prof, truth, cpu, base_cpu, reference=None):
    """Metrics of one profiled run (see doc/bench.md)."""
    m = {'cpu': cpu, 'overhead': cpu / base_cpu - 1 if base_cpu else None,
         'samples': prof.samples, 'lost': prof.lost}
    true_cpu = truth['cpu'] if truth else base_cpu
    m['rate'] = prof.samples / true_cpu if true_cpu else None
    m['calibration'] = prof.samples * prof.period / true_cpu - 1 if true_cpu else None
    m['tvd'] = m['thread_err'] = None
    if prof.samples:
        if truth:
            m['tvd'] = shares_vs_truth(prof.functions, prof.samples, truth['functions'], truth['cpu'])
            if prof.threads is not None:
                m['thread_err'] = thread_error(prof.threads, prof.samples, truth['threads'],
                                               truth['cpu'])
        elif reference:
            m['tvd'] = tvd_counts(prof.functions, reference)
    return m


def summary(values):
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    return {'median': statistics.median(v), 'min': v[0], 'max': v[-1], 'n': len(v)}

# ---------------------------------------------------------------- the run


class Context:
    pass


def probe_perf(ctx):
    out = os.path.join(ctx.tmp, 'probe.data')
    r = subprocess.run(['perf', 'record', '-q', '-e', 'task-clock', '-o', out, '--', 'true'],
                       capture_output=True, check=False) if shutil.which('perf') else None
    return bool(r and r.returncode == 0)


def run_one(ctx, wl, prof, tag):
    tmp = os.path.join(ctx.tmp, wl.name, prof.name, tag)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    argv, extra = prof.command(ctx, wl, tmp)
    env = dict(os.environ)
    env.update(extra)
    env['BENCH_SCALE'] = str(ctx.scale)
    truth_path = os.path.join(tmp, 'truth.json')
    if wl.truth:
        env['BENCH_TRUTH'] = truth_path
    rc, cpu, wall = run_tree(argv, env, tmp, wl.stdout or os.path.join(tmp, 'stdout'),
                             os.path.join(tmp, 'stderr'))
    if rc != 0:
        with open(os.path.join(tmp, 'stderr')) as f:
            err = f.read().strip().splitlines()[-3:]
        raise RuntimeError('%s under %s exited with %d: %s' % (wl.name, prof.name, rc,
                                                                ' | '.join(err)))
    truth = load_truth(truth_path) if wl.truth else None
    profile = prof.collect(ctx, wl, tmp)
    return tmp, cpu, wall, truth, profile


def bench_workload(ctx, wl, profs, log):
    """Interleaved runs: per repetition, a baseline before every pair of
    profiled runs, in an order rotated each repetition; each profiled run is
    paired with the baseline just before it."""
    active = [p for p in profs if not isinstance(p, Baseline)]
    runs = {p.name: [] for p in active}
    base_runs = []
    reference = None
    if not wl.truth and ctx.perf_ok:
        # the reference profile for a program without ground truth
        reference = {}
        ref = Perf(19997, 'perf-reference')
        for r in range(ctx.ref_reps):
            tmp, _, _, _, prof = run_one(ctx, wl, ref, 'ref%d' % r)
            for k, v in prof.functions.items():
                add(reference, k, v)
            shutil.rmtree(tmp, ignore_errors=True)
    t0, done = time.monotonic(), 0
    for rep in range(ctx.reps):
        # the time budget keeps a run with many profilers within its minutes
        spent = time.monotonic() - t0
        if rep >= ctx.min_reps and spent + spent / rep > ctx.budget:
            log('  %s: stopping after %d repetitions (time budget %.0f s)' % (wl.name, rep,
                                                                             ctx.budget))
            break
        k = rep % len(active) if active else 0
        order = active[k:] + active[:k]
        base_cpu = None
        for i, prof in enumerate(order):
            if i % ctx.per_baseline == 0:
                tmp, base_cpu, _, btruth, _ = run_one(ctx, wl, Baseline(), 'base%d-%d' % (rep, i))
                base_runs.append({'cpu': base_cpu,
                                  'truth_cpu': btruth['cpu'] if btruth else None})
                shutil.rmtree(tmp, ignore_errors=True)
            try:
                tmp, cpu, wall, truth, profile = run_one(ctx, wl, prof, 'r%d' % rep)
            except (RuntimeError, OSError, ValueError, KeyError, TypeError) as e:
                log('  %s: %s' % (prof.name, e))
                runs[prof.name].append({'error': str(e)})
                continue
            m = metrics(profile, truth, cpu, base_cpu, reference)
            m['wall'] = wall
            runs[prof.name].append(m)
            shutil.rmtree(tmp, ignore_errors=True)
        done += 1
        log('  %s rep %d/%d done' % (wl.name, rep + 1, ctx.reps))
    return {'runs': runs, 'baseline': base_runs, 'reps': done,
            'reference_samples':
            sum(reference.values()) if reference else None}


def summarise(result):
    out = {}
    for name, runs in result['runs'].items():
        ok = [r for r in runs if 'error' not in r]
        s = {k: summary([r.get(k) for r in ok])
             for k in ('tvd', 'thread_err', 'calibration', 'overhead', 'rate', 'lost', 'samples')}
        s['errors'] = [r['error'] for r in runs if 'error' in r]
        out[name] = s
    return out

# ---------------------------------------------------------------- A/B harness


def ab_run(ctx, mode, hz, binary, pairs, chunk_ms):
    """Run bench/ab in one mode; returns its JSON plus the sample count."""
    tmp = os.path.join(ctx.tmp, 'ab', '%s-%d' % (mode, hz))
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = dict(os.environ)
    argv = [binary, mode, str(hz), str(pairs), str(chunk_ms)]
    if mode == 'gperf':
        env['CPUPROFILE_FREQUENCY'] = str(hz)
        env['BENCH_GPERF_OUT'] = os.path.join(tmp, 'cpu.prof')
    if mode == 'perf':
        ctl, ack = os.path.join(tmp, 'ctl'), os.path.join(tmp, 'ack')
        os.mkfifo(ctl)
        os.mkfifo(ack)
        env.update(BENCH_PERF_CTL=ctl, BENCH_PERF_ACK=ack, BENCH_AB_HELPER='parent')
        argv = ['perf', 'record', '-e', 'task-clock', '-F', str(hz), '-D', '-1',
                '--control', 'fifo:%s,%s' % (ctl, ack), '-o', os.path.join(tmp, 'perf.data'),
                '--'] + argv
    out, err = os.path.join(tmp, 'out.json'), os.path.join(tmp, 'err')
    rc, _, _ = run_tree(argv, env, tmp, out, err)
    if rc != 0:
        with open(err) as f:
            raise RuntimeError('ab %s exited %d: %s' % (mode, rc, f.read().strip()[-300:]))
    with open(out) as f:
        doc = json.load(f)
    if mode == 'perf':
        _, _, doc['samples'], doc['lost'] = parse_perf_script(
            perf_script(os.path.join(tmp, 'perf.data')))
    shutil.rmtree(tmp, ignore_errors=True)
    return doc


def ab_bench(ctx, log):
    lo, hi = 997, 9973
    b = ctx.bench_build
    configs = [('glibc', 100, b + '/ab_glibc')]
    if ctx.libprofiler and os.path.exists(b + '/ab_gperf'):
        configs += [('gperf', 100, b + '/ab_gperf'), ('gperf', lo, b + '/ab_gperf'),
                    ('gperf', hi, b + '/ab_gperf')]
    if 'perf' in ctx.available:
        configs += [('perf', lo, b + '/ab_glibc'), ('perf', hi, b + '/ab_glibc')]
    notes = []
    if os.path.exists(b + '/ab_libprofil'):
        for clock in ('thread', 'itimer', 'perf'):
            configs += [('libprofil-' + clock, lo, b + '/ab_libprofil'),
                        ('libprofil-' + clock, hi, b + '/ab_libprofil')]
    else:
        notes.append('libprofil modes skipped: build/bench/ab_libprofil is not built '
                     '(libprofil has no profil_set_clock yet)')
    results = []
    for mode, hz, binary in configs:
        try:
            doc = ab_run(ctx, mode, hz, binary, ctx.ab_pairs, ctx.ab_chunk_ms)
        except (RuntimeError, OSError, ValueError) as e:
            log('  ab %s %d: %s' % (mode, hz, e))
            notes.append('%s at %d Hz failed: %s' % (mode, hz, e))
            continue
        ratios = [on / off - 1 for off, on in doc['pairs'] if off > 0]
        diffs = [(on - off) * 1e-9 for off, on in doc['pairs']]
        q = statistics.quantiles(ratios, n=4) if len(ratios) >= 4 else [min(ratios), 0, max(ratios)]
        on_s = doc['on_cpu_ns'] * 1e-9
        results.append({'mode': mode, 'hz': hz, 'pairs': len(ratios),
                        'overhead': statistics.median(ratios), 'q1': q[0], 'q3': q[2],
                        'us_per_sample': (sum(diffs) / doc['samples'] * 1e6
                                          if doc['samples'] else None),
                        'samples': doc['samples'], 'rate': doc['samples'] / on_s if on_s else None,
                        'lost': doc['lost'] if doc['lost'] is not None and doc['lost'] >= 0
                        else None})
        log('  ab %s %d Hz: overhead %.2f %%' % (mode, hz, 100 * results[-1]['overhead']))
    return results, notes

# ---------------------------------------------------------------- output


def fmt(s, kind='f3'):
    """median [min, max] of a summary; kind: f3, f2 (decimals), pct, int."""
    if not s:
        return 'n/a'

    def f(x):
        if kind == 'pct':
            return '%.1f' % (100 * x)
        if kind == 'int':
            return '%.0f' % x
        return '%.*f' % (int(kind[1:]), x)
    if s['n'] == 1:
        return f(s['median'])
    return '%s [%s, %s]' % (f(s['median']), f(s['min']), f(s['max']))


def svg_chart(path, title, xlabel, ylabel, series, ylog=False):
    """A small log-x line chart: series = [(label, [(x, y, ylo, yhi)])]."""
    W, H, L, R, T, Bm = 640, 380, 70, 170, 36, 48
    pts = [p for _, s in series for p in s if p[1] is not None]
    if not pts:
        return False
    import math
    xs = [p[0] for p in pts]
    ys = [v for p in pts for v in (p[1], p[2], p[3]) if v is not None]
    x0, x1 = math.log10(min(xs)) - 0.15, math.log10(max(xs)) + 0.15
    y0, y1 = min(0.0, min(ys)), max(ys) * 1.1 if max(ys) > 0 else 1.0
    if y1 == y0:
        y1 = y0 + 1

    def X(x):
        return L + (math.log10(x) - x0) / (x1 - x0) * (W - L - R)

    def Y(y):
        return H - Bm - (y - y0) / (y1 - y0) * (H - T - Bm)
    colors = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
              '#17becf', '#7f7f7f', '#bcbd22']
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="12">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>' % (L, title),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, H - Bm, W - R, H - Bm),
         '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, T, L, H - Bm)]
    for xv in (100, 300, 1000, 3000, 10000, 30000):
        if x0 <= math.log10(xv) <= x1:
            o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                     % (X(xv), T, X(xv), H - Bm))
            o.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (X(xv), H - Bm + 16, xv))
    # round tick steps: 1, 2 or 5 times a power of ten
    step = 10 ** math.floor(math.log10((y1 - y0) / 5))
    step *= next(m for m in (1, 2, 5, 10) if (y1 - y0) / (step * m) <= 6)
    yv = math.ceil(y0 / step) * step
    while yv <= y1 + 1e-12:
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>' % (L, Y(yv), W - R, Y(yv)))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%.3g</text>'
                 % (L - 4, Y(yv) + 4, 0.0 if abs(yv) < step / 1e6 else yv))
        yv += step
    if y0 < 0 < y1:
        o.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888"/>' % (L, Y(0), W - R, Y(0)))
    o.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % ((L + W - R) // 2, H - 10, xlabel))
    o.append('<text x="16" y="%d" transform="rotate(-90 16 %d)" text-anchor="middle">%s</text>'
             % ((T + H - Bm) // 2, (T + H - Bm) // 2, ylabel))
    for i, (label, s) in enumerate(series):
        c = colors[i % len(colors)]
        s = sorted(p for p in s if p[1] is not None)
        if not s:
            continue
        if len(s) > 1:
            o.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                     % (c, ' '.join('%.1f,%.1f' % (X(x), Y(y)) for x, y, _, _ in s)))
        for x, y, lo, hi in s:
            if lo is not None and hi is not None:
                o.append('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>'
                         % (X(x), Y(lo), X(x), Y(hi), c))
            o.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s"/>' % (X(x), Y(y), c))
        o.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (W - R + 10, T + 18 * i, c))
        o.append('<text x="%d" y="%d">%s</text>' % (W - R + 28, T + 18 * i + 11, label))
    o.append('</svg>')
    with open(path, 'w') as f:
        f.write('\n'.join(o) + '\n')
    return True


def chart_series(profs, summ, key, scale=1.0):
    fam = {}
    for p in profs:
        s = summ.get(p.name)
        if not s or not s.get(key) or p.hz is None and p.family != 'gperftools':
            continue
        hz = p.hz or 100  # gperftools' default rate is 100 Hz
        v = s[key]
        fam.setdefault(p.family, []).append((hz, v['median'] * scale, v['min'] * scale,
                                             v['max'] * scale))
    return sorted(fam.items())


def write_workload_md(ctx, wl, profs, res, summ, skipped):
    lines = ['# Benchmark: %s' % wl.name, '',
             '%s.  Command: `%s`.  %s.' % (wl.desc[0].upper() + wl.desc[1:],
                                          ' '.join(os.path.relpath(a, ROOT) if a.startswith(ROOT)
                                                   else a for a in wl.argv),
                                          'Ground truth from the workload\'s own thread CPU clocks'
                                          if wl.truth else 'Accuracy is measured against a '
                                          'reference profile: perf record -F 19997, %d runs, '
                                          '%s samples' % (ctx.ref_reps,
                                                          res.get('reference_samples'))),
             '',
             'Run %s, %d repetitions, scale %g (%s).  Each cell: median [min, max] over the runs. '
             'Overhead: CPU time of the whole process tree with the profiler / without, '
             'each run paired with an adjacent baseline run.' % (
                 time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), res['reps'], ctx.scale,
                 'QUICK' if ctx.quick else 'full'),
             '',
             '| profiler | rate Hz | TVD | thread share err (pts) | calibration | overhead % '
             '| effective rate Hz | samples | lost |',
             '| --- | ---: | --- | --- | --- | --- | --- | --- | --- |']
    for p in profs:
        if isinstance(p, Baseline) or p.name not in summ:
            continue
        s = summ[p.name]
        lines.append('| %s | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            p.name, p.hz or '100 (default)', fmt(s['tvd']), fmt(s['thread_err'], 'f1'),
            fmt(s['calibration']), fmt(s['overhead'], 'pct'), fmt(s['rate'], 'int'),
            fmt(s['samples'], 'int'), fmt(s['lost'], 'int')))
        for e in sorted(set(s['errors'])):
            lines.append('| %s | | error: %s | | | | | | |' % (p.name, e.replace('|', '/')[:160]))
    base = [r['cpu'] for r in res['baseline']]
    if base:
        lines += ['', 'Baseline CPU seconds (whole tree): median %.3f, min %.3f, max %.3f over %d '
                  'runs.' % (statistics.median(base), min(base), max(base), len(base))]
    if skipped:
        lines += ['', 'Not run:', ''] + ['- %s: %s' % (n, why) for n, why in skipped]
    charts = []
    ov = chart_series(profs, summ, 'overhead', 100.0)
    if svg_chart(os.path.join(ctx.out, '%s-overhead.svg' % wl.name),
                 '%s: overhead vs rate' % wl.name, 'nominal rate (Hz, log)', 'overhead %', ov):
        charts.append('![overhead vs rate](%s-overhead.svg)' % wl.name)
    ac = chart_series(profs, summ, 'tvd')
    if svg_chart(os.path.join(ctx.out, '%s-accuracy.svg' % wl.name),
                 '%s: TVD vs rate (lower is better)' % wl.name, 'nominal rate (Hz, log)',
                 'total variation distance', ac):
        charts.append('![accuracy vs rate](%s-accuracy.svg)' % wl.name)
    if charts:
        lines += [''] + charts
    lines += ['', 'Metrics are defined in [doc/bench.md](../../doc/bench.md).', '']
    with open(os.path.join(ctx.out, '%s.md' % wl.name), 'w') as f:
        f.write('\n'.join(lines))


def write_ab_md(ctx, results, notes):
    lines = ['# In-process A/B overhead', '',
             'bench/ab alternates %d ms chunks of the same work with sampling off and on '
             '(ABBA order), %d pairs per row; a chunk costs the main thread\'s CPU time (signal '
             'handlers included) plus the run time of the sampler\'s other threads and, for '
             'perf, of the perf process.  Overhead: median over pairs of on/off - 1, '
             'with the interquartile range.' % (ctx.ab_chunk_ms, ctx.ab_pairs), '',
             '| sampler | nominal Hz | overhead % (median) | IQR % | cost per sample (us) '
             '| effective rate Hz | samples | lost |',
             '| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |']
    for r in results:
        lines.append('| %s | %d | %.2f | %.2f .. %.2f | %s | %s | %d | %s |' % (
            r['mode'], r['hz'], 100 * r['overhead'], 100 * r['q1'], 100 * r['q3'],
            '%.2f' % r['us_per_sample'] if r['us_per_sample'] is not None else 'n/a',
            '%.0f' % r['rate'] if r['rate'] is not None else 'n/a', r['samples'],
            r['lost'] if r['lost'] is not None else 'n/a'))
    if notes:
        lines += ['', 'Notes:', ''] + ['- ' + n for n in notes]
    fam = {}
    for r in results:
        fam.setdefault(r['mode'], []).append((r['hz'], 100 * r['overhead'], 100 * r['q1'],
                                              100 * r['q3']))
    if svg_chart(os.path.join(ctx.out, 'ab-overhead.svg'), 'in-process A/B: overhead vs rate',
                 'nominal rate (Hz, log)', 'overhead %', sorted(fam.items())):
        lines += ['', '![A/B overhead vs rate](ab-overhead.svg)']
    lines.append('')
    with open(os.path.join(ctx.out, 'ab.md'), 'w') as f:
        f.write('\n'.join(lines))


def write_index(ctx, wls, profs, all_summ):
    lines = ['# profil benchmark results', '',
             'Regenerate with `make bench` (full) or `make bench QUICK=1`.  Method and metrics: '
             '[doc/bench.md](../../doc/bench.md).  Per workload: ' +
             ', '.join('[%s](%s.md)' % (w.name, w.name) for w in wls) +
             '; in-process overhead: [ab](ab.md)' +
             ('; call stacks (-g beside perf --call-graph): [callgraph](callgraph.md)'
              if os.path.exists(os.path.join(ctx.out, 'callgraph.md')) else '') +
             ('; off-CPU time (beside offcputime and perf -e cs): [offcpu](offcpu.md)'
              if os.path.exists(os.path.join(ctx.out, 'offcpu.md')) else '') + '.', '',
             'Median TVD (accuracy, lower is better) per profiler and workload:', '',
             '| profiler | ' + ' | '.join(w.name for w in wls) + ' |',
             '| --- |' + ' ---: |' * len(wls)]
    for p in profs:
        if isinstance(p, Baseline):
            continue
        cells = []
        for w in wls:
            s = all_summ.get(w.name, {}).get(p.name)
            cells.append('%.3f' % s['tvd']['median'] if s and s['tvd'] else '-')
        if any(c != '-' for c in cells):
            lines.append('| %s | %s |' % (p.name, ' | '.join(cells)))
    lines += ['', 'Median whole-run overhead (%):', '',
              '| profiler | ' + ' | '.join(w.name for w in wls) + ' |',
              '| --- |' + ' ---: |' * len(wls)]
    for p in profs:
        if isinstance(p, Baseline):
            continue
        cells = []
        for w in wls:
            s = all_summ.get(w.name, {}).get(p.name)
            cells.append('%.1f' % (100 * s['overhead']['median']) if s and s['overhead'] else '-')
        if any(c != '-' for c in cells):
            lines.append('| %s | %s |' % (p.name, ' | '.join(cells)))
    lines.append('')
    with open(os.path.join(ctx.out, 'README.md'), 'w') as f:
        f.write('\n'.join(lines))

# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build', help='the build directory (B)')
    ap.add_argument('--out', default=os.path.join(HERE, 'results'))
    ap.add_argument('--quick', action='store_true', help='a short run (under 2 minutes)')
    ap.add_argument('--smoke', action='store_true',
                    help='structure check only: funcs workload, baseline and glibc profil, once')
    ap.add_argument('--reps', type=int, help='repetitions per workload')
    ap.add_argument('--workloads', help='comma-separated subset')
    ap.add_argument('--profilers', help='comma-separated subset of profiler names')
    ap.add_argument('--no-ab', action='store_true', help='skip the in-process A/B harness')
    ap.add_argument('--no-stacks', action='store_true',
                    help='skip the call-stack section (bench/callgraph.py)')
    ap.add_argument('--no-offcpu', action='store_true',
                    help='skip the off-CPU section (bench/offcpu.py)')
    args = ap.parse_args()

    ctx = Context()
    ctx.quick, ctx.smoke = args.quick, args.smoke
    ctx.build = os.path.abspath(args.build)
    ctx.bench_build = os.path.join(ctx.build, 'bench')
    ctx.out = os.path.abspath(args.out)
    ctx.tmp = os.path.join(ctx.out, 'tmp')
    os.makedirs(ctx.tmp, exist_ok=True)
    ctx.shim = os.path.join(ctx.bench_build, 'glibc_profil_shim.so')
    ctx.libprofil_shim = os.path.join(ctx.bench_build, 'libprofil_shim.so')
    ctx.profil = os.path.join(ctx.build, 'profil')
    ctx.libprofiler = next((p for p in ('/usr/lib/x86_64-linux-gnu/libprofiler.so.0',
                                        '/usr/lib/libprofiler.so.0') if os.path.exists(p)), None)
    ctx.perf_ok = probe_perf(ctx)
    # reps is a maximum: a workload stops after min_reps once its next
    # repetition would overrun its budget (seconds); one baseline run per
    # per_baseline profiled runs
    if ctx.smoke:
        ctx.scale, ctx.reps, ctx.min_reps, ctx.budget, ctx.ref_reps = 0.05, 1, 1, 60, 1
    elif ctx.quick:
        ctx.scale, ctx.reps, ctx.min_reps, ctx.budget, ctx.ref_reps = 0.3, 2, 1, 16, 1
    else:
        ctx.scale, ctx.reps, ctx.min_reps, ctx.budget, ctx.ref_reps = 0.8, 7, 3, 150, 3
    ctx.per_baseline = 2
    ctx.ab_pairs, ctx.ab_chunk_ms = (12, 20) if ctx.quick else (60, 20)
    if args.reps:
        ctx.reps = ctx.min_reps = args.reps
        ctx.budget = float('inf')

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    profs = profilers(ctx)
    if ctx.smoke:
        profs = [p for p in profs if isinstance(p, (Baseline, GlibcProfil))]
    if args.profilers:
        want = set(args.profilers.split(','))
        profs = [p for p in profs if isinstance(p, Baseline) or p.name in want]
    skipped, runnable = [], []
    ctx.available = set()
    for p in profs:
        why = p.unavailable(ctx)
        if why:
            skipped.append((p.name, why))
            log('bench: skipping %s: %s' % (p.name, why))
        else:
            runnable.append(p)
            ctx.available.add(p.family)
    wls = workloads(ctx)
    if ctx.smoke:
        wls = [w for w in wls if w.name == 'funcs']
    if args.workloads:
        wls = [w for w in wls if w.name in args.workloads.split(',')]
    t0 = time.monotonic()
    all_summ, raw = {}, {}
    for wl in wls:
        log('bench: workload %s' % wl.name)
        wprofs, wskipped = [], list(skipped)
        for p in runnable:
            why = p.unsupported(wl)
            if why:
                wskipped.append((p.name, why))
            else:
                wprofs.append(p)
        res = bench_workload(ctx, wl, wprofs, log)
        summ = summarise(res)
        all_summ[wl.name], raw[wl.name] = summ, res
        write_workload_md(ctx, wl, wprofs, res, summ, wskipped)
    if not ctx.smoke and not args.no_ab:
        log('bench: in-process A/B')
        ab, notes = ab_bench(ctx, log)
        raw['ab'] = ab
        write_ab_md(ctx, ab, notes)
    if (not ctx.smoke and not args.no_stacks and not args.profilers and
            (not args.workloads or 'callgraph' in args.workloads.split(','))):
        log('bench: call stacks (bench/callgraph.py)')
        import callgraph  # bench/, beside this file
        raw['callgraph'] = callgraph.bench_callgraph(ctx.build, ctx.out, ctx.quick,
                                                     reps=args.reps)
    if (not ctx.smoke and not args.no_offcpu and not args.profilers and
            (not args.workloads or 'offcpu' in args.workloads.split(','))):
        log('bench: off-CPU time (bench/offcpu.py)')
        import offcpu  # bench/, beside this file
        raw['offcpu'] = offcpu.bench_offcpu(ctx.build, ctx.out, ctx.quick, reps=args.reps,
                                            log=log)
    write_index(ctx, wls, [p for p in runnable], all_summ)
    with open(os.path.join(ctx.out, 'results.json'), 'w') as f:
        json.dump({'summary': all_summ, 'raw': raw, 'skipped': skipped,
                   'quick': ctx.quick, 'scale': ctx.scale, 'reps': ctx.reps}, f, indent=1,
                  default=str)
    shutil.rmtree(ctx.tmp, ignore_errors=True)
    log('bench: done in %.0f s; results in %s' % (time.monotonic() - t0, ctx.out))
    return 0


if __name__ == '__main__':
    sys.exit(main())
