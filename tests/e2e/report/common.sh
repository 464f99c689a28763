# Shared preamble of tests/e2e/report_*.sh (sourced; POSIX sh).
. "$ROOT/tests/lib.sh"
P="$PROGS" # the tests' short name for the programs' directory

# near NAME GOT WANT [SHARE]: ok when the seconds a report says (GOT) are the seconds the programs
# measured (WANT) within SHARE (0.25) of them or 0.03 s, whichever is more
near() {
	if awk -v g="$2" -v w="$3" -v f="${4:-0.25}" 'BEGIN { d = g - w; if (d < 0) d = -d; t = f * w; if (t < 0.03) t = 0.03; exit !(g != "" && d <= t) }'; then
		ok "$1 ($2 s, measured $3 s)"
	else
		no "$1" "the report says '$2' s, the programs measured $3 s"
	fi
}

# html_page FILE: a written page is whole (doctype, one data element, the end), loads nothing
# from elsewhere (no URL: the SVG namespace name is not one) and has every template marker replaced
html_page() {
	expect html_doctype "$(head -c 15 "$1")" "<!DOCTYPE html>"
	expect html_one_data_element "$(grep -c 'id="profile-data"' "$1")" 1
	expect html_ends "$(tail -n 1 "$1")" "</html>"
	fetch='(src|href)=|https?://|@import|url\('
	if sed 's|http://www.w3.org/2000/svg||g' "$1" | grep -Eq "$fetch"; then
		no html_self_contained "$(sed 's|http://www.w3.org/2000/svg||g' "$1" | grep -Eo ".{0,30}($fetch).{0,30}" | head -3)"
	else
		ok html_self_contained
	fi
	grep -q '@@' "$1" && no html_markers_replaced "a @@ marker is left" || ok html_markers_replaced
}

# page_data FILE: the page's data (the JSON in its profile-data element)
page_data() {
	sed -n 's/.*<script type="application\/json" id="profile-data">\(.*\)<\/script>.*/\1/p' "$1"
}
