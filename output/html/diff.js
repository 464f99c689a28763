/*
 * profil diff: the diff page's script (after common.js).  It reads the
 * comparison (the JSON in #profile-data, doc/report-json.md "profil diff
 * --format html"): the stacks of both profiles merged into one tree of
 * nodes [parent, frame, old samples, new samples], and the tables of
 * `profil diff --format json`.  It draws a differential flame graph (root
 * at the top: all -> command -> outermost frame .. leaf), the widths of the
 * new (or old) profile, each frame coloured by its change: grown red, shrunk
 * blue, the deeper the larger the change against the largest one drawn;
 * normalised (shares of each profile's samples, in percentage points) or not
 * (CPU seconds, samples when a period is unknown).  Beside it the table of
 * changes, sortable.  A click on a frame zooms to it, on a row marks its
 * frames.
 *
 * Every string of the profiles is untrusted: it is inserted with
 * textContent or as an attribute value, never parsed as markup.
 */
(function () {
	'use strict';

	var ROW = 18; /* flame graph row height, px */
	var MAX_ROWS = 1000; /* table rows rendered at most */
	var P = profil, $ = P.$, el = P.el, clear = P.clear, str = P.str, fmtInt = P.fmtInt;

	/* ---- the data ---------------------------------------------------------- */

	function num(x) {
		x = +x;
		return isFinite(x) && x > 0 ? x : 0;
	}

	function side(s) {
		s = s || {};
		return { file: str(s.file), command: str(s.command), clock: str(s.clock),
			 total: num(s.total_samples), seconds: num(s.total_seconds),
			 notes: Array.isArray(s.notes) ? s.notes.map(str) : [],
			 complete: s.complete !== false };
	}

	function tableRows(rows) {
		return (Array.isArray(rows) ? rows : []).map(function (r) {
			r = r || {};
			var o = r.old || {}, n = r.new || {};

			return { name: str(r.name) || '?', object: str(r.object), path: str(r.path),
				 old: { samples: num(o.samples), pct: +o.percent || 0, sec: +o.seconds || 0 },
				 new: { samples: num(n.samples), pct: +n.percent || 0, sec: +n.seconds || 0 },
				 dpct: +r.delta_percent || 0, dsec: +r.delta_seconds || 0 };
		});
	}

	/* The tree of nodes; a node whose parent or frame is not one is dropped, with its subtree. */
	function buildTree(d, frames) {
		var raw = Array.isArray(d.nodes) ? d.nodes : [], nodes = [], bad = 0;

		raw.forEach(function (r, i) {
			var okay = Array.isArray(r) && r.length === 4 && typeof r[2] === 'number' &&
				   typeof r[3] === 'number' && isFinite(r[2]) && isFinite(r[3]) &&
				   r[2] >= 0 && r[3] >= 0;
			var parent = null;

			if (okay && i === 0)
				okay = r[1] === -1;
			else if (okay)
				okay = P.isIndex(r[0], i) && nodes[r[0]] && P.isIndex(r[1], frames.length);
			if (okay && i > 0)
				parent = nodes[r[0]];
			if (!okay) {
				bad++;
				nodes.push(null);
				return;
			}
			var n = { parent: parent, frame: i ? r[1] : -1, count: [r[2], r[3]], kids: [],
				  depth: parent ? parent.depth + 1 : 0, key: i ? String(r[1]) : 'all' };

			n.kind = !parent ? 'root' : frames[n.frame].command ? 'command' : 'frame';
			n.label = !parent ? 'all' : frames[n.frame].label;
			if (parent)
				parent.kids.push(n);
			nodes.push(n);
		});
		if (!nodes[0])
			throw new Error('this page holds no tree of stacks');
		nodes.forEach(function (n) {
			if (!n)
				return;
			n.self = [n.count[0], n.count[1]];
			n.kids.forEach(function (c) {
				n.self[0] -= c.count[0];
				n.self[1] -= c.count[1];
			});
		});
		return { root: nodes[0], nodes: nodes.filter(Boolean), bad: bad };
	}

	/* Check the embedded comparison d. */
	function check(d) {
		var df, frames, tree, per;

		if (!d || d.version !== 1 || !d.diff || typeof d.diff !== 'object')
			throw new Error('this page holds no comparison of version 1');
		df = d.diff;
		frames = (Array.isArray(d.frames) ? d.frames : []).map(function (f) {
			f = f || {};
			var name = str(f.name) || '?', cmd = f.command === true;

			return { name: name, object: str(f.object), path: str(f.path), command: cmd,
				 label: name };
		});
		tree = buildTree(d, frames);
		per = Array.isArray(d.seconds_per_sample) ? d.seconds_per_sample : [];
		return {
			old: side(df.old), new: side(df.new), frames: frames, tree: tree,
			per: [num(per[0]), num(per[1])], normalize: d.normalize === true,
			tables: { functions: tableRows(df.functions), objects: tableRows(df.objects),
				  commands: tableRows(df.commands) },
			secondsKnown: df.seconds_known === true, version: str(d.profil_version)
		};
	}

	var D = P.loadData('comparison', check);

	if (!D)
		return;

	/* the totals percentages are of: the profiles' samples, else the tree's */
	var TOTAL = [D.old.total || D.tree.root.count[0], D.new.total || D.tree.root.count[1]];

	/* ---- figures and formatting ------------------------------------------------ */

	function pct(count, s) {
		return TOTAL[s] ? 100 * count / TOTAL[s] : 0;
	}

	function secs(count, s) {
		return count * D.per[s];
	}

	function fmtSec(v, sign) {
		var a = Math.abs(v), t = a >= 100 ? a.toFixed(1) : a.toFixed(3);

		return (v < 0 && +t ? '-' : sign ? '+' : '') + t + ' s';
	}

	function fmtSigned(v, digits, unit) {
		var t = Math.abs(v).toFixed(digits);

		return (v < 0 && +t ? '-' : '+') + t + unit;
	}

	function fmtSamples(v, sign) {
		return (sign && v >= 0 ? '+' : '') + fmtInt(v);
	}

	/* The change of counts [old, new] in the current mode. */
	function change(c) {
		if (state.normalize)
			return pct(c[1], 1) - pct(c[0], 0);
		if (D.per[0] && D.per[1])
			return secs(c[1], 1) - secs(c[0], 0);
		return c[1] - c[0];
	}

	function fmtChange(v) {
		if (state.normalize)
			return fmtSigned(v, 2, ' pts');
		if (D.per[0] && D.per[1])
			return fmtSec(v, true);
		return fmtSamples(v, true) + ' samples';
	}

	/* ---- colours: by the change, against the largest change of a frame ---------- */

	var NEUTRAL = 'hsl(0,0%,86%)';

	function colourOf(delta, max) {
		var i = max > 0 ? Math.min(1, Math.abs(delta) / max) : 0;

		if (i < 0.02)
			return { fill: NEUTRAL, dark: false, hue: -1 };
		var hue = delta > 0 ? 0 : 215, light = Math.round(90 - 42 * i);

		return { fill: 'hsl(' + hue + ',80%,' + light + '%)', dark: light < 58, hue: hue };
	}

	/* ---- state ------------------------------------------------------------------ */

	var state = {
		normalize: D.normalize,
		width: 1, /* the profile whose counts are the widths: 0 old, 1 new */
		zoom: [], /* child keys from the root to the zoomed node */
		table: 'functions',
		sortKey: 'delta',
		sortDir: -1,
		mark: null /* 'name\0object' of the row clicked: its frames are outlined */
	};
	var maxChange = 0;

	function computeMax() {
		maxChange = 0;
		D.tree.nodes.forEach(function (n) {
			if (n.kind === 'frame')
				maxChange = Math.max(maxChange, Math.abs(change(n.count)));
		});
	}

	/* ---- header ---------------------------------------------------------------- */

	function sideFact(which, s, i) {
		var t = fmtInt(s.total) + ' samples';

		if (D.per[i])
			t += ', ' + fmtSec(s.total * D.per[i]);
		P.fact($('facts'), which, P.basename(s.file) + ' (' + (s.command || 'unknown command') + '): ' + t);
	}

	function drawHeader() {
		var title = (D.old.command || '?') + '  \u2192  ' + (D.new.command || '?'), notes = [];

		$('command').textContent = title;
		$('command').title = D.old.file + ' \u2192 ' + D.new.file;
		document.title = 'profil diff: ' + title;
		$('version').textContent = 'profil ' + D.version;
		sideFact('old', D.old, 0);
		sideFact('new', D.new, 1);
		[['old', D.old], ['new', D.new]].forEach(function (w) {
			if (!w[1].complete)
				$('warnings').appendChild(el('div', 'warning', 'The ' + w[0] +
					' profile is incomplete: the recorder did not finish (it was killed).'));
			w[1].notes.forEach(function (n) {
				notes.push(w[0] + ': ' + n);
			});
		});
		if (D.tree.bad)
			notes.push(D.tree.bad + ' malformed node' + (D.tree.bad === 1 ? '' : 's') +
				   ' of this page were ignored');
		if (notes.length) {
			$('notes').hidden = false;
			$('notes-summary').textContent = 'Notes (' + notes.length + ')';
			notes.forEach(function (n) {
				$('notes-list').appendChild(el('li', null, n));
			});
		}
		if (!D.per[0] || !D.per[1])
			$('warnings').appendChild(el('div', 'warning',
				'A profile does not say how much CPU time a sample stands for: not normalised, the changes are in samples.'));
	}

	function drawUnit() {
		$('change-unit').textContent = 'change in ' + (state.normalize ?
			'percentage points of each profile\'s samples' :
			D.per[0] && D.per[1] ? 'CPU seconds' : 'samples') +
			'; the largest drawn: ' + fmtChange(maxChange).replace(/^\+/, '\u00b1');
	}

	/* ---- flame graph ----------------------------------------------------------- */

	var flame = P.flameGraph($('flame'), ROW, $('tooltip'), fillTooltip);

	function zoomNode() {
		var n = D.tree.root;

		for (var i = 0; i < state.zoom.length; i++) {
			var c = null;

			for (var k = 0; k < n.kids.length && !c; k++)
				if (n.kids[k].key === state.zoom[i])
					c = n.kids[k];
			if (!c)
				break;
			n = c;
		}
		return n;
	}

	function markKey(n) {
		var f = D.frames[n.frame];

		return f ? f.name + '\u0000' + P.basename(f.object) : null;
	}

	function drawFrame(n, x, w, cls) {
		var delta = change(n.count), c = n.kind === 'root' ? { fill: '#4b5563', dark: true, hue: -1 } :
						      colourOf(delta, maxChange);
		var g = flame.frame(n, x, w, n.depth, c.fill, cls + (c.dark ? ' dark' : '') +
				    (state.mark && markKey(n) === state.mark ? ' marked' : ''));

		g.setAttribute('data-change', String(delta));
		g.setAttribute('data-hue', String(c.hue));
	}

	function drawFlame() {
		var s = state.width, focus = zoomNode();
		var chain = flame.draw(focus, function (n) {
			return n.kids.slice().sort(function (p, q) {
				return q.count[s] - p.count[s] || (p.label < q.label ? -1 : p.label > q.label);
			});
		}, function (n) {
			return n.count[s];
		}, drawFrame);

		P.drawCrumbs($('crumbs'), chain, zoomTo);
		$('reset').disabled = chain.length < 2;
		$('flame-note').textContent = !focus.count[s] ? 'The ' + (s ? 'new' : 'old') +
			' profile has no samples here: draw the widths of the other one.' :
			'Widths: samples of the ' + (s ? 'new' : 'old') + ' profile' +
			(s ? ' (code only the old profile ran is drawn with the widths of the old one).' : '.') +
			' Click a frame to zoom, Esc to zoom out.';
	}

	function zoomTo(n) {
		state.zoom = P.pathKeys(n);
		flame.hideTip();
		drawFlame();
	}

	function drawLegend() {
		var lg = $('legend');

		clear(lg);
		[['shrunk', -1], ['unchanged', 0], ['grown', 1]].forEach(function (k) {
			var s = el('span'), ramp = el('span', 'ramp');

			(k[1] ? [0.25, 0.6, 1] : [0]).forEach(function (f) {
				var i = el('i');

				i.style.background = k[1] ? colourOf(k[1] * f, 1).fill : NEUTRAL;
				ramp.appendChild(i);
			});
			s.appendChild(ramp);
			s.appendChild(document.createTextNode(k[0]));
			lg.appendChild(s);
		});
		var m = el('span');

		m.appendChild(document.createTextNode('the deeper the colour, the larger the change against the largest one drawn'));
		lg.appendChild(m);
	}

	/* ---- tooltip --------------------------------------------------------------- */

	function tipLine(tt, label, c, s, cls) {
		var d = el('div', 'tt-num' + (cls ? ' ' + cls : ''), label + ': ');
		var text = fmtInt(c) + ' samples \u00b7 ' + pct(c, s).toFixed(2) + '%';

		d.appendChild(el('b', null, D.per[s] ? fmtSec(secs(c, s)) : fmtInt(c) + ' samples'));
		d.appendChild(document.createTextNode(' \u00b7 ' + text));
		tt.appendChild(d);
	}

	function fillTooltip(tt, n) {
		var f = D.frames[n.frame], c = n.count, d, line;

		tt.appendChild(el('div', 'tt-name', n.label));
		if (f)
			tt.appendChild(el('div', 'tt-sub', f.command ? 'command ' + f.path : f.path || f.object));
		tipLine(tt, 'Old', c[0], 0);
		tipLine(tt, 'New', c[1], 1);
		d = c[1] - c[0];
		line = el('div', 'tt-num ' + (change(c) > 0 ? 'tt-up' : change(c) < 0 ? 'tt-down' : ''), 'Change: ');
		line.appendChild(el('b', null, fmtChange(change(c))));
		line.appendChild(document.createTextNode(' \u00b7 ' + fmtSamples(d, true) + ' samples \u00b7 ' +
			(D.per[0] && D.per[1] ? fmtSec(secs(c[1], 1) - secs(c[0], 0), true) + ' \u00b7 ' : '') +
			fmtSigned(pct(c[1], 1) - pct(c[0], 0), 2, ' pts')));
		tt.appendChild(line);
		if (n.kind === 'frame')
			tt.appendChild(el('div', 'tt-num', 'Self: old ' + fmtInt(n.self[0]) + ', new ' +
					  fmtInt(n.self[1]) + ' samples'));
	}

	/* ---- table ----------------------------------------------------------------- */

	var COLS = [
		{ key: 'name', label: 'Name', cls: 'fn', text: true },
		{ key: 'object', label: 'Object', cls: 'obj', text: true },
		{ key: 'oldpct', label: 'old %', get: function (r) { return r.old.pct; }, fmt: function (v) { return v.toFixed(2); } },
		{ key: 'newpct', label: 'new %', get: function (r) { return r.new.pct; }, fmt: function (v) { return v.toFixed(2); } },
		{ key: 'dpct', label: '\u0394 pts', get: function (r) { return r.dpct; }, fmt: function (v) { return fmtSigned(v, 2, ''); }, delta: true },
		{ key: 'oldsec', label: 'old s', get: function (r) { return r.old.sec; }, fmt: secCell },
		{ key: 'newsec', label: 'new s', get: function (r) { return r.new.sec; }, fmt: secCell },
		{ key: 'dsec', label: '\u0394 s', get: function (r) { return r.dsec; }, fmt: function (v) { return D.secondsKnown ? fmtSec(v, true).replace(' s', '') : '-'; }, delta: true },
		{ key: 'oldn', label: 'old', get: function (r) { return r.old.samples; }, fmt: fmtInt },
		{ key: 'newn', label: 'new', get: function (r) { return r.new.samples; }, fmt: fmtInt }
	];

	function secCell(v) {
		return D.secondsKnown ? fmtSec(v).replace(' s', '') : '-';
	}

	/* The column 'delta' stands for: the change the flame graph colours by. */
	function deltaKey() {
		return state.normalize ? 'dpct' : D.secondsKnown ? 'dsec' : 'dn';
	}

	function sortValue(r, key) {
		if (key === 'delta')
			key = deltaKey();
		if (key === 'dn')
			return r.new.samples - r.old.samples;
		if (key === 'name')
			return r.name.toLowerCase();
		if (key === 'object')
			return r.object.toLowerCase();
		for (var i = 0; i < COLS.length; i++)
			if (COLS[i].key === key)
				return COLS[i].get(r);
		return 0;
	}

	function compareRows(a, b) {
		var va = sortValue(a, state.sortKey), vb = sortValue(b, state.sortKey);
		var c = va < vb ? -1 : va > vb ? 1 : 0;

		return c * state.sortDir || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
	}

	function sortedOn(c) {
		return state.sortKey === c.key || (state.sortKey === 'delta' && c.key === deltaKey());
	}

	function drawTableHead() {
		var tr = $('table-head'), objects = state.table === 'functions';

		clear(tr);
		$('name-group').colSpan = objects ? 2 : 1;
		$('name-group').textContent = state.table;
		COLS.forEach(function (c) {
			if (c.key === 'object' && !objects)
				return;
			var th = el('th', (c.text ? c.cls : 'num') + ' sortable');
			var on = sortedOn(c);

			th.appendChild(document.createTextNode(c.label));
			th.appendChild(el('span', 'arrow', on ? (state.sortDir < 0 ? '\u25bc' : '\u25b2') : ''));
			th.setAttribute('data-key', c.key);
			th.setAttribute('aria-sort', on ? (state.sortDir < 0 ? 'descending' : 'ascending') : 'none');
			th.title = 'sort by ' + c.label;
			th.addEventListener('click', function () {
				if (sortedOn(c)) {
					state.sortDir = -state.sortDir;
					state.sortKey = c.key;
				} else {
					state.sortKey = c.key;
					state.sortDir = c.text ? 1 : -1;
				}
				drawTableHead();
				drawTable();
			});
			tr.appendChild(th);
		});
	}

	function drawTable() {
		var body = $('table').tBodies[0], frag = document.createDocumentFragment();
		var rows = D.tables[state.table].slice().sort(compareRows), objects = state.table === 'functions';

		rows.slice(0, MAX_ROWS).forEach(function (r) {
			var tr = el('tr'), key = r.name + '\u0000' + r.object;

			if (state.mark === key)
				tr.className = 'marked';
			COLS.forEach(function (c) {
				if (c.key === 'object' && !objects)
					return;
				var td;

				if (c.text) {
					td = el('td', c.cls, r[c.key]);
					td.title = c.key === 'name' && !objects ? r.path : r[c.key];
				} else {
					var v = c.get(r);

					td = el('td', 'num' + (c.delta && v > 0 ? ' grown' : c.delta && v < 0 ? ' shrunk' : ''), c.fmt(v));
				}
				tr.appendChild(td);
			});
			if (objects)
				tr.addEventListener('click', function () {
					state.mark = state.mark === key ? null : key;
					drawTable();
					drawFlame();
				});
			frag.appendChild(tr);
		});
		clear(body);
		body.appendChild(frag);
		$('table-count').textContent = rows.length + ' row' + (rows.length === 1 ? '' : 's') +
			(objects ? ' (click one to outline its frames)' : '');
		$('table-more').textContent = rows.length > MAX_ROWS ?
			(rows.length - MAX_ROWS) + ' more not shown: profil diff --format text lists them all.' : '';
	}

	/* ---- events ---------------------------------------------------------------- */

	function redraw() {
		computeMax();
		drawUnit();
		drawFlame();
		drawTableHead();
		drawTable();
	}

	$('normalize').checked = state.normalize;
	$('normalize').addEventListener('change', function () {
		state.normalize = $('normalize').checked;
		if (/^d(pct|sec|n)$/.test(state.sortKey))
			state.sortKey = 'delta';
		flame.hideTip();
		redraw();
	});
	$('widths').addEventListener('change', function () {
		state.width = +$('widths').value ? 1 : 0;
		flame.hideTip();
		drawFlame();
	});
	$('table-kind').addEventListener('change', function () {
		state.table = $('table-kind').value in D.tables ? $('table-kind').value : 'functions';
		drawTableHead();
		drawTable();
	});
	$('reset').addEventListener('click', function () {
		zoomTo(D.tree.root);
	});
	$('flame').addEventListener('click', function (ev) {
		var n = flame.nodeOf(ev);

		if (n)
			zoomTo(n);
	});
	document.addEventListener('keydown', function (ev) {
		if (ev.key === 'Escape')
			zoomTo(D.tree.root);
	});
	P.onResize(drawFlame);

	drawHeader();
	drawLegend();
	redraw();
	document.body.setAttribute('data-ready', '1');
})();
