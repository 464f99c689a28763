/*
 * profil's pages: what the report's page (page.js) and the diff's page
 * (diff.js) share: elements made with text (never markup: every string of a
 * profile is untrusted), numbers, names, the width of labels in a flame
 * graph, the tooltip's place.  Both scripts follow this one in their
 * <script> element and take these as `profil.NAME`.
 */
var profil = (function () {
	'use strict';

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

	/* A fatal message at the top of the page: the data cannot be shown. */
	function fatal(what, e) {
		var f = el('div', 'fatal', 'This ' + what + ' cannot be shown: ' + e.message + '.');

		document.body.insertBefore(f, document.body.firstChild);
	}

	return { $: $, el: el, clear: clear, basename: basename, isIndex: isIndex, str: str,
		 fmtInt: fmtInt, hash: hash, labelFitter: labelFitter, placeTooltip: placeTooltip,
		 fatal: fatal, SVGNS: 'http://www.w3.org/2000/svg' };
})();
