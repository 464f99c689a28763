/*
 * profil's pages: what the report's page (page.js) and the diff's page
 * (diff.js) share: elements made with text (never markup: every string of a
 * profile is untrusted), numbers, names, the header's facts, the flame
 * graph (its frames and their labels, the tooltip over them, the zoom path
 * and its breadcrumbs).  Both scripts follow this one in their <script>
 * element and take these as `profil.NAME`.
 */
var profil = (function () {
	'use strict';

	var SVGNS = 'http://www.w3.org/2000/svg';

	function $(id) {
		return document.getElementById(id);
	}

	/* An element with a class and text (as text, never as markup). */
	function el(tag, cls, text) {
		var e = document.createElement(tag);

		if (cls)
			e.className = cls;
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function clear(e) {
		while (e.firstChild)
			e.removeChild(e.firstChild);
	}

	function basename(p) {
		var s = String(p || '');
		var i = s.lastIndexOf('/');

		return i >= 0 && i < s.length - 1 ? s.slice(i + 1) : s;
	}

	function isIndex(x, n) {
		return typeof x === 'number' && x >= 0 && x < n && Math.floor(x) === x;
	}

	function str(x) {
		return typeof x === 'string' ? x : '';
	}

	function fmtInt(n) {
		var s = Math.round(Math.abs(n)).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');

		return (n < 0 && Math.round(n) !== 0 ? '-' : '') + s;
	}

	/* A number in [0, 1) from a string (FNV-1a): stable shades by name. */
	function hash(s) {
		var h = 2166136261;

		for (var i = 0; i < s.length; i++)
			h = Math.imul(h ^ s.charCodeAt(i), 16777619);
		return (h >>> 0) / 4294967296;
	}

	/* The labels of svg's frames: fit(label, width) cuts a label to the width (px). */
	function labelFitter(svg) {
		var ctx = document.createElement('canvas').getContext('2d'), charW = 7;

		if (ctx) {
			ctx.font = getComputedStyle(svg).font;
			charW = ctx.measureText('abcdefghijklmnopqrstuvwxyz_ABCDEFGHIJKLMNOP0123456789').width / 53;
		}
		return function (label, w) {
			var n = Math.floor((w - 8) / (charW * 1.05)); /* an average width: leave a margin */

			if (n < 3)
				return '';
			return label.length <= n ? label : label.slice(0, n - 1) + '\u2026';
		};
	}

	/* The tooltip tt beside the mouse of event ev, inside the window. */
	function placeTooltip(tt, ev) {
		var w = tt.offsetWidth, h = tt.offsetHeight;
		var x = ev.clientX + 14, y = ev.clientY + 16;

		if (x + w > window.innerWidth - 4)
			x = Math.max(4, ev.clientX - w - 14);
		if (y + h > window.innerHeight - 4)
			y = Math.max(4, ev.clientY - h - 12);
		tt.style.left = x + 'px';
		tt.style.top = y + 'px';
	}

	/* A fact of the header: "label value", the value in bold. */
	function fact(parent, label, value) {
		var s = el('span', null, label + ' ');

		s.appendChild(el('b', null, value));
		parent.appendChild(s);
	}

	/* The keys of the path from the root (not included) down to node n (a flame graph's zoom). */
	function pathKeys(n) {
		var keys = [];

		for (; n.parent; n = n.parent)
			keys.unshift(n.key);
		return keys;
	}

	/*
	 * A flame graph drawn in svg, rows of row px: draw() draws a zoom,
	 * frame() one node n as a <g class="frame..."> with its rect and its
	 * label cut to the width (and keeps n); nodeOf(ev) is the node drawn
	 * under an event of the svg.  The
	 * tooltip tt follows the mouse over a frame, filled by fillTip(tt, node)
	 * when the node changes; hideTip() hides it.
	 */
	function flameGraph(svg, row, tt, fillTip) {
		var drawn = []; /* the nodes drawn, by data-i of their <g> */
		var fit = labelFitter(svg);
		var tipNode = null; /* the node the tooltip shows */
		var MIN_W = 0.4; /* narrower frames (and their callees) are not drawn, px */

		function nodeOf(ev) {
			var g = ev.target.closest ? ev.target.closest('g.frame') : null;

			return g ? drawn[+g.getAttribute('data-i')] : null;
		}

		function hideTip() {
			tt.hidden = true;
			tipNode = null;
		}

		svg.addEventListener('mousemove', function (ev) {
			var n = nodeOf(ev);

			if (!n) {
				hideTip();
				return;
			}
			if (n !== tipNode || tt.hidden) {
				tipNode = n;
				clear(tt);
				fillTip(tt, n);
				tt.hidden = false;
			}
			placeTooltip(tt, ev);
		});
		svg.addEventListener('mouseleave', hideTip);
		return {
			/*
			 * Node focus and its ancestors across the whole width, below it
			 * its descendants (kidsOf(n): in drawing order, weightOf(n)),
			 * each by drawFrame(n, x, w, cls) (which calls frame()).
			 * Returns the chain of nodes from the root to focus.
			 */
			draw: function (focus, kidsOf, weightOf, drawFrame) {
				var W = svg.getBoundingClientRect().width || 1000, chain = [];
				var maxDepth = focus.depth, all = weightOf(focus);

				clear(svg);
				drawn = [];
				for (var a = focus; a; a = a.parent)
					chain.unshift(a);
				chain.forEach(function (n) {
					drawFrame(n, 0, W, n === focus ? ' focus' : ' ancestor');
				});
				(function walk(n, x0, scale) {
					var x = x0;

					kidsOf(n).forEach(function (c) {
						var w = weightOf(c) * scale;

						if (w >= MIN_W) {
							drawFrame(c, x, w, '');
							if (c.depth > maxDepth)
								maxDepth = c.depth;
							walk(c, x, scale);
						}
						x += w;
					});
				})(focus, 0, all ? W / all : 0);
				svg.setAttribute('height', String((maxDepth + 1) * row));
				svg.setAttribute('viewBox', '0 0 ' + W + ' ' + (maxDepth + 1) * row);
				return chain;
			},
			frame: function (n, x, w, depth, fill, cls) {
				var g = document.createElementNS(SVGNS, 'g');
				var r = document.createElementNS(SVGNS, 'rect');
				var t = document.createElementNS(SVGNS, 'text');

				g.setAttribute('class', 'frame' + cls);
				g.setAttribute('data-i', String(drawn.length));
				r.setAttribute('x', x.toFixed(2));
				r.setAttribute('y', String(depth * row));
				r.setAttribute('width', Math.max(w, 0.5).toFixed(2));
				r.setAttribute('height', String(row - 1));
				r.setAttribute('rx', '2');
				r.setAttribute('fill', fill);
				t.setAttribute('x', (x + 4).toFixed(2));
				t.setAttribute('y', String(depth * row + (row - 1) / 2));
				t.textContent = fit(n.label, w);
				g.appendChild(r);
				g.appendChild(t);
				svg.appendChild(g);
				drawn.push(n);
				return g;
			},
			nodeOf: nodeOf,
			hideTip: hideTip
		};
	}

	/* The breadcrumbs of a zoom in nav: chain's labels, each but the last a button to zoom(node). */
	function drawCrumbs(nav, chain, zoom) {
		clear(nav);
		chain.forEach(function (n, i) {
			if (i)
				nav.appendChild(el('span', 'sep', '\u203a'));
			if (i === chain.length - 1) {
				nav.appendChild(el('span', 'here', n.label));
				return;
			}
			var b = el('button', null, n.label);

			b.type = 'button';
			b.title = n.label;
			b.addEventListener('click', function () {
				zoom(n);
			});
			nav.appendChild(b);
		});
	}

	/* draw() after the window is resized, at most once an animation frame. */
	function onResize(draw) {
		var pending = 0;

		window.addEventListener('resize', function () {
			if (!pending)
				pending = requestAnimationFrame(function () {
					pending = 0;
					draw();
				});
		});
	}

	/* A fatal message at the top of the page: the data cannot be shown. */
	function fatal(what, e) {
		var f = el('div', 'fatal', 'This ' + what + ' cannot be shown: ' + e.message + '.');

		document.body.insertBefore(f, document.body.firstChild);
	}

	/*
	 * The page's data: the JSON in #profile-data as check(d) makes it (check
	 * throws when d is not what the page draws); null, after a fatal message
	 * about what (the report, the comparison), when it cannot be read.
	 */
	function loadData(what, check) {
		try {
			return check(JSON.parse($('profile-data').textContent));
		} catch (e) {
			fatal(what, e);
			return null;
		}
	}

	return { $: $, el: el, clear: clear, basename: basename, isIndex: isIndex, str: str,
		 fmtInt: fmtInt, hash: hash, fact: fact, pathKeys: pathKeys, flameGraph: flameGraph,
		 drawCrumbs: drawCrumbs, onResize: onResize, loadData: loadData };
})();
