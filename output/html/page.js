/*
 * profil report: the page's script.  It reads the profile (the JSON in
 * #profile-data, doc/report-json.md "HTML report data") and draws a flame
 * graph (SVG, root at the top: all -> process -> outermost frame .. leaf) and
 * a table of functions (self and total samples).  A process or thread
 * selector filters both, a search highlights matching frames and filters
 * the table, a click on a frame zooms to it.  A profile with off-CPU time
 * ("offcpu" rows) switches both between CPU, off-CPU and wall time (CPU +
 * off-CPU), off-CPU frames in colours of their own.
 *
 * Every string of the profile is untrusted: it is inserted with textContent
 * or as an attribute value, never parsed as markup.
 */
(function () {
	'use strict';

	var ROW = 18; /* flame graph row height, px */
	var MAX_ROWS = 1000; /* table rows rendered at most */
	var $ = profil.$, el = profil.el, clear = profil.clear, basename = profil.basename;
	var isIndex = profil.isIndex, str = profil.str, fmtInt = profil.fmtInt, hash = profil.hash;

	/* ---- the data ---------------------------------------------------------- */

	/* Check the embedded profile d; rows that point nowhere are dropped and counted. */
	function check(d) {
		var procs, threads, frames, rows = [], offRows = [], bad = 0;

		if (!d || d.version !== 1 || !Array.isArray(d.samples))
			throw new Error('this page holds no profile data of version 1');
		procs = (Array.isArray(d.procs) ? d.procs : []).map(function (p) {
			p = p || {};
			return { pid: +p.pid || 0, exe: str(p.exe), comm: str(p.comm) };
		});
		threads = (Array.isArray(d.threads) ? d.threads : []).map(function (t) {
			t = t || {};
			return { proc: t.proc, tid: +t.tid || 0, comm: str(t.comm) };
		});
		frames = (Array.isArray(d.frames) ? d.frames : []).map(function (f) {
			f = f || {};
			return { name: str(f.name) || '?', object: str(f.object), file: str(f.file),
				 line: +f.line || 0 };
		});
		threads.forEach(function (t) {
			if (!isIndex(t.proc, procs.length))
				t.bad = true;
		});
		function rowOkay(r, from) {
			var okay = r.length > from && isIndex(r[0], threads.length) && !threads[r[0]].bad &&
				   typeof r[from - 1] === 'number' && r[from - 1] > 0 && isFinite(r[from - 1]);

			for (var i = from; okay && i < r.length; i++)
				okay = isIndex(r[i], frames.length);
			return okay;
		}
		d.samples.forEach(function (r) {
			if (Array.isArray(r) && rowOkay(r, 2))
				rows.push(r);
			else
				bad++;
		});
		/* off-CPU rows [thread, reason, ns, frames...] become [thread, ns, frames...] marked off */
		(Array.isArray(d.offcpu) ? d.offcpu : []).forEach(function (r) {
			if (!Array.isArray(r) || !rowOkay(r, 3) || !isIndex(r[1], 5) || r[1] < 1) {
				bad++;
				return;
			}
			var o = [r[0]].concat(r.slice(2));

			o.off = true;
			o.reason = r[1];
			offRows.push(o);
		});
		return { meta: d.meta || {}, procs: procs, threads: threads, frames: frames,
			 rows: rows, cpuRows: rows, offRows: offRows, bad: bad,
			 annotations: Array.isArray(d.annotations) ? d.annotations : [] };
	}

	var D = profil.loadData('report', check);

	if (!D)
		return;

	var M = D.meta;
	var PER = +M.seconds_per_sample || 0; /* seconds per sample, 0: unknown */
	var HAS_OFF = D.offRows.length > 0 && PER > 0;
	/*
	 * The time shown: 'cpu' (rows of samples), 'off' (rows of off-CPU ns) or
	 * 'wall' (both, samples as ns).  UNIT: seconds per unit of a row's weight.
	 */
	var MODE = HAS_OFF ? 'wall' : 'cpu';
	var UNIT = PER;
	var wallRows = null;

	function setMode(m) {
		MODE = HAS_OFF && (m === 'off' || m === 'wall') ? m : 'cpu';
		if (MODE === 'cpu') {
			D.rows = D.cpuRows;
			UNIT = PER;
		} else if (MODE === 'off') {
			D.rows = D.offRows;
			UNIT = 1e-9;
		} else {
			if (!wallRows)
				wallRows = D.cpuRows.map(function (r) {
					var w = r.slice();

					w[1] = r[1] * PER * 1e9;
					return w;
				}).concat(D.offRows);
			D.rows = wallRows;
			UNIT = 1e-9;
		}
		document.body.setAttribute('data-mode', MODE);
	}
	var exes = {};

	D.procs.forEach(function (p) {
		if (p.exe)
			exes[p.exe] = true;
	});

	/* ---- formatting ---------------------------------------------------------- */

	function fmtSec(n) {
		if (!UNIT)
			return '?';
		var s = n * UNIT;

		return (s >= 100 ? s.toFixed(1) : s.toFixed(3)) + ' s';
	}

	function fmtPct(n, of) {
		return of ? (100 * n / of).toFixed(2) + '%' : '0.00%';
	}

	function procLabel(i) {
		var p = D.procs[i];

		/* an image's executable names it best: a thread's comm may predate an exec */
		return (basename(p.exe) || p.comm || '?') + ' (' + p.pid + ')';
	}

	function frameLabel(i) {
		var f = D.frames[i];

		return f.file ? f.name + ':' + f.line : f.name;
	}

	/* ---- colours: by kind of object, shades by name -------------------------- */

	var KINDS = {
		exe: { label: 'executable', hue: [16, 44], sat: 82, light: [58, 68] },
		lib: { label: 'shared library', hue: [88, 128], sat: 45, light: [56, 66] },
		sys: { label: 'system library', hue: [196, 222], sat: 60, light: [62, 72] },
		kernel: { label: 'kernel', hue: [0, 12], sat: 70, light: [60, 70] },
		other: { label: '[vdso], [unknown] and other pseudo objects', hue: [210, 220], sat: 8, light: [70, 78] }
	};

	function kindOf(f) {
		var o = f.object;

		if (o === '[kernel]')
			return 'kernel'; /* kernel frames, innermost in a stack */
		if (!o || o.charAt(0) === '[')
			return 'other'; /* [vdso], [unknown], [truncated], ... */
		if (exes[o])
			return 'exe';
		if (/^\/(usr\/)?(local\/)?lib(32|64|x32)?\//.test(o))
			return 'sys';
		return 'lib';
	}

	function colour(kind, name) {
		var k = KINDS[kind], x = hash(name), y = hash(name + '~');

		return 'hsl(' + Math.round(k.hue[0] + x * (k.hue[1] - k.hue[0])) + ',' + k.sat + '%,' +
		       Math.round(k.light[0] + y * (k.light[1] - k.light[0])) + '%)';
	}

	/* off-CPU time: violet shades, whatever the object (its own colours) */
	var OFF_KIND = { label: 'off the CPU (waiting: sleep, I/O, locks, preempted)', hue: [255, 290], sat: 58, light: [64, 76] };

	KINDS.off = OFF_KIND;
	D.frames.forEach(function (f) {
		f.kind = kindOf(f);
		f.fill = colour(f.kind, f.name);
		f.offFill = colour('off', f.name);
	});

	/* ---- state and the derived views ----------------------------------------- */

	var state = {
		sel: 'all', /* 'all', 'p:<proc>' or 't:<thread>' */
		search: '',
		zoom: [], /* child keys from the root to the zoomed node */
		sortKey: 'self',
		sortDir: -1
	};
	var view; /* for the current selection: rows, total, tree, stats */

	function selectedRows() {
		var s = state.sel, k = s.charAt(0), i = +s.slice(2);

		return D.rows.filter(function (r) {
			if (k === 'p')
				return D.threads[r[0]].proc === i;
			if (k === 't')
				return r[0] === i;
			return true;
		});
	}

	function node(parent, key, label, kind, frame) {
		return { parent: parent, key: key, label: label, kind: kind, frame: frame,
			 depth: parent ? parent.depth + 1 : 0, total: 0, self: 0, off: 0, kids: new Map() };
	}

	function child(n, key, make) {
		var c = n.kids.get(key);

		if (!c) {
			c = make();
			n.kids.set(key, c);
		}
		return c;
	}

	/* all -> process -> outermost frame .. leaf; a row is [thread, count, leaf, .., outermost]. */
	function buildTree(rows) {
		var root = node(null, 'all', 'all', 'root', -1);

		rows.forEach(function (r) {
			var count = r[1], proc = D.threads[r[0]].proc, off = r.off ? count : 0;
			var n = child(root, 'p' + proc, function () {
				return node(root, 'p' + proc, procLabel(proc), 'proc', -1);
			});

			root.total += count;
			root.off += off;
			n.total += count;
			n.off += off;
			for (var i = r.length - 1; i >= 2; i--) {
				var f = r[i], parent = n;

				n = child(n, f, function () {
					return node(parent, f, frameLabel(f), D.frames[f].kind, f);
				});
				n.total += count;
				n.off += off;
			}
			n.self += count;
		});
		(function sortKids(n) {
			n.sorted = Array.from(n.kids.values()).sort(function (a, b) {
				return b.total - a.total || (a.label < b.label ? -1 : a.label > b.label);
			});
			n.sorted.forEach(sortKids);
		})(root);
		return root;
	}

	/* Self and total (inclusive: once per sample, however deep the recursion) per frame. */
	function frameStats(rows) {
		var by = new Map();

		function get(f) {
			var s = by.get(f);

			if (!s) {
				s = { frame: f, self: 0, total: 0, selfOff: 0, totalOff: 0 };
				by.set(f, s);
			}
			return s;
		}
		rows.forEach(function (r) {
			var seen = r.length > 3 ? new Set() : null, off = r.off ? r[1] : 0;

			get(r[2]).self += r[1];
			get(r[2]).selfOff += off;
			for (var i = 2; i < r.length; i++) {
				if (seen) {
					if (seen.has(r[i]))
						continue;
					seen.add(r[i]);
				}
				get(r[i]).total += r[1];
				get(r[i]).totalOff += off;
			}
		});
		return Array.from(by.values());
	}

	function recompute() {
		var rows = selectedRows();

		view = { rows: rows, tree: buildTree(rows), stats: frameStats(rows) };
		view.total = view.tree.total;
	}

	function matches(frame) {
		return state.search !== '' && D.frames[frame].name.toLowerCase().indexOf(state.search) >= 0;
	}

	/* The zoomed node: follow state.zoom as far as the current tree has it. */
	function zoomNode() {
		var n = view.tree;

		for (var i = 0; i < state.zoom.length; i++) {
			var c = n.kids.get(state.zoom[i]);

			if (!c)
				break;
			n = c;
		}
		return n;
	}

	/* ---- header ---------------------------------------------------------------- */

	var fact = profil.fact;

	function drawHeader() {
		var facts = $('facts'), rate = +M.rate_hz || 0, notes = Array.isArray(M.notes) ? M.notes : [];
		var cmd = str(M.command) || '(unknown command)';

		$('command').textContent = cmd;
		$('command').title = cmd;
		document.title = 'profil: ' + cmd;
		$('version').textContent = 'profil ' + str(M.profil_version);
		fact(facts, 'clock', str(M.clock) + (M.clock_note ? ' (' + str(M.clock_note) + ')' : ''));
		fact(facts, 'rate', rate ? rate.toFixed(1) + ' Hz' : 'unknown');
		fact(facts, 'samples', fmtInt(+M.total_samples || 0) + (M.lost ? ', lost ' + fmtInt(+M.lost) : ''));
		fact(facts, 'sampled CPU time', PER ? ((+M.total_samples || 0) * PER).toFixed(3) + ' s' : 'unknown');
		if (+M.cpu_seconds)
			fact(facts, 'measured CPU time', (+M.cpu_seconds).toFixed(3) + ' s');
		if (HAS_OFF)
			fact(facts, 'off-CPU time', (+M.offcpu_seconds || 0).toFixed(3) + ' s');
		/* time the report has without samples: not in the table or the flame graph */
		var acc = +M.accounted_seconds || 0, uns = +M.unsampled_seconds || 0;
		var parts = [acc > 0 ? acc.toFixed(3) + ' s kernel (accounted)' : '',
			     uns > 0 ? uns.toFixed(3) + ' s unsampled' : ''].filter(Boolean);
		if (parts.length)
			fact(facts, 'without samples (in profil report, not below)',
			     parts.length > 1 ? (acc + uns).toFixed(3) + ' s: ' + parts.join(', ') : parts[0]);
		/* as profil report's text says it: every process image, and those the selector offers */
		var images = +M.process_images || D.procs.length;
		fact(facts, 'process images', fmtInt(images) + ' (' + fmtInt(+M.images_with_time || D.procs.length) +
		     ' with time, ' + fmtInt(D.procs.length) + ' with samples)');
		fact(facts, 'threads', String(D.threads.length));
		if (M.complete === false)
			$('warnings').appendChild(el('div', 'warning',
				'This profile is incomplete: the recorder did not finish (it was killed). The samples up to then are shown.'));
		if (D.bad)
			notes = notes.concat([D.bad + (D.bad === 1 ? ' malformed sample row' : ' malformed sample rows') + ' of this page were ignored']);
		if (notes.length) {
			$('notes').hidden = false;
			$('notes-summary').textContent = 'Notes (' + notes.length + ')';
			notes.forEach(function (n) {
				$('notes-list').appendChild(el('li', null, str(n)));
			});
		}
	}

	/* The selector: everything, each process, each of its threads; with samples. */
	function drawSelector() {
		var sel = $('selector'), all = 0, byProc = [], byThread = [];

		clear(sel);
		D.rows.forEach(function (r) {
			var p = D.threads[r[0]].proc;

			all += r[1];
			byProc[p] = (byProc[p] || 0) + r[1];
			byThread[r[0]] = (byThread[r[0]] || 0) + r[1];
		});
		function option(parent, value, text) {
			var o = el('option', null, text);

			o.value = value;
			parent.appendChild(o);
		}
		option(sel, 'all', 'All processes and threads: ' + fmtSec(all) +
		       (MODE === 'cpu' ? ' (' + fmtInt(all) + ' samples)' : ''));
		D.procs.forEach(function (p, i) {
			if (!byProc[i])
				return;
			var g = document.createElement('optgroup');

			g.label = procLabel(i) + ' ' + (p.exe || '');
			option(g, 'p:' + i, 'process ' + p.pid + ', all threads: ' + fmtSec(byProc[i]) + ' (' +
			       fmtPct(byProc[i], all) + ')');
			D.threads.forEach(function (t, ti) {
				if (t.proc === i && byThread[ti])
					option(g, 't:' + ti, '\u2003thread ' + t.tid + ' ' + (t.comm || '?') + ': ' +
					       fmtSec(byThread[ti]) + ' (' + fmtPct(byThread[ti], all) + ')');
			});
			sel.appendChild(g);
		});
		sel.value = state.sel;
		if (sel.value !== state.sel) { /* nothing of the selection in this time: everything */
			state.sel = 'all';
			sel.value = 'all';
		}
	}

	function drawSelectionTotal() {
		var t = $('selection-total'), all = 0;

		D.rows.forEach(function (r) {
			all += r[1];
		});
		clear(t);
		t.appendChild(document.createTextNode('shown: '));
		t.appendChild(el('b', null, fmtSec(view.total)));
		t.appendChild(document.createTextNode(', ' +
			(MODE === 'cpu' ? fmtInt(view.total) + ' samples, ' : '') +
			fmtPct(view.total, all) + ' of all' +
			(MODE === 'wall' ? ' (' + fmtSec(view.tree.off) + ' off the CPU)' : '')));
	}

	/* ---- flame graph ----------------------------------------------------------- */

	var flame = profil.flameGraph($('flame'), ROW, $('tooltip'), fillTooltip);

	/* An off-CPU frame: in the off-CPU view every frame; in wall time, one mostly off the CPU. */
	function isOff(n) {
		return MODE === 'off' || (MODE === 'wall' && n.off * 2 > n.total);
	}

	function fillOf(n) {
		if (n.kind === 'root')
			return '#4b5563';
		if (n.kind === 'proc')
			return '#64748b';
		return isOff(n) ? D.frames[n.frame].offFill : D.frames[n.frame].fill;
	}

	function drawFrame(n, x, w, cls) {
		flame.frame(n, x, w, n.depth, fillOf(n), cls + (n.kind === 'root' || n.kind === 'proc' ? ' dark' : '') +
			    (n.frame >= 0 && matches(n.frame) ? ' match' : '') + (n.frame >= 0 && isOff(n) ? ' off' : ''));
	}

	function drawFlame() {
		var chain;

		$('flame').setAttribute('class', state.search ? 'searching' : '');
		chain = flame.draw(zoomNode(), function (n) {
			return n.sorted;
		}, function (n) {
			return n.total;
		}, drawFrame);
		profil.drawCrumbs($('crumbs'), chain, zoomTo);
		$('reset').disabled = chain.length < 2;
	}

	function zoomTo(n) {
		state.zoom = profil.pathKeys(n);
		flame.hideTip();
		drawFlame();
	}

	function drawFlameNote() {
		var deep = D.rows.some(function (r) {
			return r.length > 3;
		});

		if (!D.rows.length)
			$('flame-note').textContent = MODE === 'off' ? 'This profile has no off-CPU time.' :
				'This profile has no samples.';
		else
			$('flame-note').textContent = deep ? '' :
				'Flat profile: no call stacks were recorded, so each function sits directly under its process. Click a frame to zoom, Esc to zoom out.';
	}

	function drawLegend() {
		var lg = $('legend'), used = {};

		clear(lg);
		D.frames.forEach(function (f) {
			used[f.kind] = MODE !== 'off';
		});
		used.off = MODE !== 'cpu';
		Object.keys(KINDS).forEach(function (k) {
			if (!used[k])
				return;
			var s = el('span'), i = el('i');

			i.style.background = colour(k, 'legend');
			s.appendChild(i);
			s.appendChild(document.createTextNode(KINDS[k].label));
			lg.appendChild(s);
		});
		var s = el('span'), i = el('i');

		i.style.background = 'var(--match)';
		s.appendChild(i);
		s.appendChild(document.createTextNode('search match'));
		lg.appendChild(s);
	}

	/* ---- tooltip --------------------------------------------------------------- */

	function fillTooltip(tt, n) {
		var f = n.frame >= 0 ? D.frames[n.frame] : null;
		var p = n.kind === 'proc' ? D.procs[+n.key.slice(1)] : null;

		tt.appendChild(el('div', 'tt-name', n.label));
		if (f) {
			tt.appendChild(el('div', 'tt-sub', f.object));
			if (f.file)
				tt.appendChild(el('div', 'tt-sub', f.file + ':' + f.line));
		} else if (p) {
			tt.appendChild(el('div', 'tt-sub', p.exe || '(unknown executable)'));
		}
		function line(label, count) {
			var d = el('div', 'tt-num', label + ': ');

			d.appendChild(el('b', null, fmtSec(count)));
			d.appendChild(document.createTextNode(' \u00b7 ' +
				(MODE === 'cpu' ? fmtInt(count) + ' samples \u00b7 ' : '') + fmtPct(count, view.total)));
			tt.appendChild(d);
		}
		line(MODE === 'wall' ? 'Total (wall)' : MODE === 'off' ? 'Total off the CPU' : 'Total', n.total);
		if (MODE === 'wall')
			line('of which off the CPU', n.off);
		if (f)
			line('Self', n.self);
	}

	/* ---- table ----------------------------------------------------------------- */

	var lines = D.frames.some(function (f) {
		return f.file;
	});
	var COLS;

	/* The table's columns for the time shown: samples with CPU time, off-CPU seconds in wall time. */
	function makeCols() {
		var third = function (k) {
			if (MODE === 'cpu')
				return [{ key: k, label: 'samples', cls: 'num', n: k }];
			if (MODE === 'wall')
				return [{ key: k, label: 'off-CPU s', cls: 'num', off: k + 'Off' }];
			return [];
		};

		COLS = [{ key: 'self', label: '%', cls: 'pct', pct: 'self', first: true },
			{ key: 'self', label: MODE === 'wall' ? 'wall s' : 'seconds', cls: 'num', sec: 'self' }]
			.concat(third('self'),
				[{ key: 'total', label: '%', cls: 'pct total', pct: 'total', first: true },
				 { key: 'total', label: MODE === 'wall' ? 'wall s' : 'seconds', cls: 'num', sec: 'total' }],
				third('total'),
				[{ key: 'name', label: 'Function', cls: 'fn', first: true },
				 { key: 'object', label: 'Object', cls: 'obj' }]);
		if (lines)
			COLS.push({ key: 'source', label: 'Source', cls: 'src' });
		$('self-group').colSpan = MODE === 'off' ? 2 : 3;
		$('total-group').colSpan = MODE === 'off' ? 2 : 3;
	}

	function sortValue(s, key) {
		var f = D.frames[s.frame];

		if (key === 'name')
			return f.name.toLowerCase();
		if (key === 'object')
			return basename(f.object).toLowerCase();
		if (key === 'source')
			return f.file ? basename(f.file) + ':' + String(f.line).padStart(9, '0') : '';
		return s[key];
	}

	function compareStats(a, b) {
		var va = sortValue(a, state.sortKey), vb = sortValue(b, state.sortKey);
		var c = va < vb ? -1 : va > vb ? 1 : 0;

		return c * state.sortDir || b.self - a.self || b.total - a.total || a.frame - b.frame;
	}

	function drawTableHead() {
		var tr = $('table-head');

		clear(tr);
		$('name-group').colSpan = lines ? 3 : 2;
		COLS.forEach(function (c) {
			var th = el('th', c.cls.split(' ')[0] === 'pct' ? 'num sortable' : c.cls + ' sortable');
			var on = state.sortKey === c.key && (c.pct || c.key === 'name' || c.key === 'object' ||
							      c.key === 'source');

			th.appendChild(document.createTextNode(c.label));
			th.appendChild(el('span', 'arrow', on ? (state.sortDir < 0 ? '\u25bc' : '\u25b2') : ''));
			if (c.first)
				th.className += ' first-of-group';
			th.setAttribute('data-key', c.key);
			th.setAttribute('aria-sort', state.sortKey === c.key ? (state.sortDir < 0 ? 'descending' : 'ascending') : 'none');
			th.title = 'sort by ' + (c.key === 'self' || c.key === 'total' ? c.key + (MODE === 'cpu' ? ' samples' : ' time') : c.label.toLowerCase());
			th.addEventListener('click', function () {
				if (state.sortKey === c.key)
					state.sortDir = -state.sortDir;
				else {
					state.sortKey = c.key;
					state.sortDir = c.key === 'self' || c.key === 'total' ? -1 : 1;
				}
				drawTableHead();
				drawTable();
			});
			tr.appendChild(th);
		});
	}

	/* The name with the search term marked (as text nodes around a <mark>). */
	function nameCell(td, name) {
		var low = name.toLowerCase();
		/* (a name whose lower case has another length is shown unmarked) */
		var i = state.search && low.length === name.length ? low.indexOf(state.search) : -1;

		if (i < 0) {
			td.textContent = name;
			return;
		}
		td.appendChild(document.createTextNode(name.slice(0, i)));
		td.appendChild(el('mark', null, name.slice(i, i + state.search.length)));
		td.appendChild(document.createTextNode(name.slice(i + state.search.length)));
	}

	function cell(tr, c, s) {
		var f = D.frames[s.frame], td = el('td', c.cls + (c.first ? ' first-of-group' : ''));

		if (c.pct) {
			var bar = el('div', 'bar');

			bar.style.width = (view.total ? 100 * s[c.pct] / view.total : 0).toFixed(2) + '%';
			td.appendChild(bar);
			td.appendChild(el('span', null, fmtPct(s[c.pct], view.total)));
		} else if (c.sec) {
			td.textContent = fmtSec(s[c.sec]);
		} else if (c.off) {
			td.textContent = fmtSec(s[c.off]);
		} else if (c.n) {
			td.textContent = fmtInt(s[c.n]);
		} else if (c.key === 'name') {
			nameCell(td, f.name);
			td.title = f.name;
		} else if (c.key === 'object') {
			td.textContent = basename(f.object);
			td.title = f.object;
		} else {
			td.textContent = f.file ? basename(f.file) + ':' + f.line : '';
			td.title = f.file ? f.file + ':' + f.line : '';
		}
		tr.appendChild(td);
	}

	function drawTable() {
		var body = $('table').tBodies[0], frag = document.createDocumentFragment();
		var rows = view.stats.filter(function (s) {
			return state.search === '' || matches(s.frame);
		}).sort(compareStats);

		rows.slice(0, MAX_ROWS).forEach(function (s) {
			var tr = el('tr');

			COLS.forEach(function (c) {
				cell(tr, c, s);
			});
			tr.addEventListener('click', function () {
				showAnnotation(s.frame);
			});
			frag.appendChild(tr);
		});
		clear(body);
		body.appendChild(frag);
		$('table-count').textContent = rows.length + (state.search ? ' of ' + view.stats.length : '') +
					       ' function' + (view.stats.length === 1 ? '' : 's') +
					       (lines ? ' (by source line)' : '');
		$('table-more').textContent = rows.length > MAX_ROWS ?
			(rows.length - MAX_ROWS) + ' more not shown: search to narrow the list.' : '';
	}

	/* ---- annotation: a function's source lines and instructions ------------------ */

	var ANN = {};

	D.annotations.forEach(function (a) {
		if (a && typeof a.name === 'string' && Array.isArray(a.instructions))
			ANN[a.name + '\u0000' + str(a.path)] = a; /* a frame's object is the path */
	});

	/* white (cold) to red (hot), by the share of the function's samples */
	function heat(pct) {
		var p = Math.max(0, Math.min(100, +pct || 0));

		return p > 0 ? 'hsl(' + (48 - 48 * p / 100) + ', 95%, ' + (94 - 40 * p / 100) + '%)' : '';
	}

	function annRow(table, cls, pct, sec, samples, where, text, hot) {
		var tr = el('tr', cls + (hot ? ' hot' : '')), td;

		tr.appendChild(el('td', 'mark', hot ? '>>' : ''));
		td = el('td', 'num', (+pct || 0).toFixed(2));
		td.style.backgroundColor = heat(pct);
		tr.appendChild(td);
		tr.appendChild(el('td', 'num', fmtSec(+sec || 0)));
		tr.appendChild(el('td', 'num', fmtInt(+samples || 0)));
		tr.appendChild(el('td', 'where', where));
		tr.appendChild(el('td', 'code', text));
		table.appendChild(tr);
		return tr;
	}

	function insnText(i) {
		var t = str(i.text);

		if (i.target_name)
			t += ' <' + str(i.target_name) + '>';
		if (i.loop_back)
			t += '   ^ loop';
		if (i.loop_start)
			t += '   <- loop start';
		return t;
	}

	function drawAnnotation(a) {
		var table = el('table', 'ann'), lines = {}, last = null, head = el('tr');

		['', '%func', 'seconds', 'samples', 'line / address', 'source / instruction'].forEach(function (h) {
			head.appendChild(el('th', '', h));
		});
		table.appendChild(head);
		(Array.isArray(a.lines) ? a.lines : []).forEach(function (l) {
			lines[str(l.file) + ':' + l.line] = l;
		});
		a.instructions.forEach(function (i) {
			var key = i.file ? str(i.file) + ':' + i.line : null, l = key ? lines[key] : null;

			if (l && key !== last) {
				var where = basename(str(l.file)) + ':' + l.line +
					    (l.inlined ? ' (inlined ' + str(l.inlined) + ')' : '');

				annRow(table, 'src', l.percent, l.seconds, l.samples, where,
				       typeof l.text === 'string' ? l.text : '', !!l.hottest);
			}
			last = key;
			annRow(table, 'insn', i.percent, i.seconds, i.samples,
			       (+i.address || 0).toString(16) + ':', insnText(i), !!i.hottest);
		});
		return table;
	}

	function showAnnotation(frame) {
		var f = D.frames[frame], a = f ? ANN[f.name + '\u0000' + f.object] : null;
		var body = $('annotation'), notes = [];

		if (!f)
			return;
		clear(body);
		$('annotation-card').hidden = false;
		$('annotation-title').textContent = f.name + (f.object ? ' (' + f.object + ')' : '');
		if (!a) {
			$('annotation-note').textContent =
				'Not annotated in this page: it holds the ' + D.annotations.length +
				' hottest functions with machine code; profil annotate shows any function.';
		} else {
			notes.push(fmtInt(+a.samples || 0) + ' samples, ' + fmtSec(+a.seconds || 0) + ' s, ' +
				   (+a.run_percent || 0).toFixed(2) + ' % of the run\'s samples');
			(Array.isArray(a.notes) ? a.notes : []).forEach(function (n) {
				notes.push(str(n));
			});
			$('annotation-note').textContent = notes.join('. ');
			if (a.instructions.length)
				body.appendChild(drawAnnotation(a));
		}
		$('annotation-card').setAttribute('data-function', f.name);
		$('annotation-card').scrollIntoView({ block: 'nearest' });
	}

	/* ---- events ---------------------------------------------------------------- */

	function redrawAll() {
		recompute();
		drawSelectionTotal();
		drawFlame();
		drawTable();
	}

	$('mode').addEventListener('change', function () {
		setMode($('mode').value);
		state.zoom = [];
		flame.hideTip();
		makeCols();
		drawSelector();
		drawFlameNote();
		drawLegend();
		drawTableHead();
		redrawAll();
	});
	$('selector').addEventListener('change', function () {
		state.sel = $('selector').value;
		state.zoom = [];
		redrawAll();
	});
	function onSearch() {
		var term = $('search').value.trim().toLowerCase();

		if (term === state.search)
			return;
		state.search = term;
		drawFlame();
		drawTable();
	}
	/* typing, the search box's clear button, a value set by a script or a driver */
	['input', 'search', 'change'].forEach(function (ev) {
		$('search').addEventListener(ev, onSearch);
	});
	$('reset').addEventListener('click', function () {
		zoomTo(view.tree);
	});
	$('flame').addEventListener('click', function (ev) {
		var n = flame.nodeOf(ev);

		if (n) {
			zoomTo(n);
			if (typeof n.frame === 'number')
				showAnnotation(n.frame);
		}
	});
	$('annotation-close').addEventListener('click', function () {
		$('annotation-card').hidden = true;
	});
	document.addEventListener('keydown', function (ev) {
		var inSearch = document.activeElement === $('search');

		if (ev.key === '/' && !inSearch && document.activeElement.tagName !== 'SELECT') {
			ev.preventDefault();
			$('search').focus();
		} else if (ev.key === 'Escape' && !inSearch) {
			zoomTo(view.tree);
		}
	});
	profil.onResize(drawFlame);

	setMode(MODE);
	makeCols();
	if (HAS_OFF) {
		$('mode-field').hidden = false;
		$('mode').value = MODE;
	}
	drawHeader();
	drawSelector();
	drawFlameNote();
	drawLegend();
	drawTableHead();
	redrawAll();
	document.body.setAttribute('data-ready', '1');
})();
