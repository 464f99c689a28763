/* SPDX-License-Identifier: MIT */
/*
 * The HTML pages' sources (output/html/: the report's page, the diff's page,
 * the pieces of the page and the script both use), embedded in the profil
 * binary at build time so that the installed command needs no file on disk.
 * Paths are relative to the top of the source tree (mk/html.mk assembles
 * this file from there).  output/html.c reads them as [start, end).
 */
	.section .rodata.profil_html, "a"

	.global html_page_start, html_page_end
	.global html_css_start, html_css_end
	.global html_js_start, html_js_end
	.global html_common_js_start, html_common_js_end
	.global html_diff_page_start, html_diff_page_end
	.global html_diff_css_start, html_diff_css_end
	.global html_diff_js_start, html_diff_js_end
	.global html_top_start, html_top_end
	.global html_flame_start, html_flame_end
	.global html_end_start, html_end_end

html_page_start:
	.incbin "output/html/page.html"
html_page_end:

html_css_start:
	.incbin "output/html/page.css"
html_css_end:

html_js_start:
	.incbin "output/html/page.js"
html_js_end:

html_common_js_start:
	.incbin "output/html/common.js"
html_common_js_end:

html_diff_page_start:
	.incbin "output/html/diff.html"
html_diff_page_end:

html_diff_css_start:
	.incbin "output/html/diff.css"
html_diff_css_end:

html_diff_js_start:
	.incbin "output/html/diff.js"
html_diff_js_end:

html_top_start:
	.incbin "output/html/top.html"
html_top_end:

html_flame_start:
	.incbin "output/html/flame.html"
html_flame_end:

html_end_start:
	.incbin "output/html/end.html"
html_end_end:

	.section .note.GNU-stack, "", @progbits
