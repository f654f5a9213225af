#!/bin/bash
# The HTML report opens on the answer (issue 44): Chromium loads the demo's
# report at 1400x900, and the verdict, the forest plot of the changed rows
# and the member shares' bars lie in the first 900 pixels, nothing wider
# than the page (the table scrolls in its own box). Of a one-repeat set
# (every row untested), the untested rows are one line per reason, not one
# per row. The geometry comes from a copy of the report into which this
# test, not the report, puts a script writing getBoundingClientRect() into
# the DOM that --dump-dom returns; the report itself stays script-free.
. "$SB_TOP/tests/lib.sh"
cd "$SB_TOP"
BROWSER=$(command -v chromium || command -v chromium-browser || true)
[ -n "$BROWSER" ] || skip "chromium not installed (tools/install-deps installs it)"
G=tests/golden/report/inputs
DEMO=$G/demo
DEMO1=$G/demo-1
# until the recorded demo sets are committed: the CI's one-repeat demo
[ -e $DEMO/result.json ] || DEMO=${SB_DEMO3:-}
[ -e $DEMO1/result.json ] || DEMO1=${SB_DEMO1:-/tmp/ci-final/results/demo-20261207-015409}
[ -n "$DEMO" ] && [ -e "$DEMO/result.json" ] || skip "no recorded demo set ($G/demo)"
[ -e "$DEMO1/result.json" ] || skip "no recorded one-repeat demo set ($G/demo-1)"

browse() {
	timeout 120 "$BROWSER" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync \
		--no-first-run --user-data-dir="$SB_TMP/profile" --window-size=1400,900 "$@" \
		2>>"$SB_TMP/chromium.log"
}

# The test's probe: each checked element's box (page coordinates) and the
# elements that end outside the page though no box of theirs scrolls (the
# table's box does; a closed <details> shows nothing), as JSON in <pre>.
cat >"$SB_TMP/probe.js" <<'EOF'
function box(e) {
	var b = e.getBoundingClientRect();
	return {top: b.top + scrollY, bottom: b.bottom + scrollY, left: b.left, right: b.right};
}
function all(s) { return Array.prototype.map.call(document.querySelectorAll(s), box); }
function scrolls(e) {
	for (var p = e.parentElement; p; p = p.parentElement) {
		var o = getComputedStyle(p).overflowX;
		if (o == "auto" || o == "scroll" || o == "hidden") return true;
	}
	return !!e.closest("details:not([open])");
}
var wide = [];
document.querySelectorAll("body *").forEach(function (e) {
	var b = e.getBoundingClientRect();
	if (!scrolls(e) && b.width && (b.right > innerWidth + 1 || b.left < -1))
		wide.push(e.tagName + " " + Math.round(b.left) + ".." + Math.round(b.right));
});
var g = {width: innerWidth, page: document.documentElement.scrollWidth, wide: wide,
	verdict: all(".first h2"), lists: all("ul.verdict"), forest: all(".first svg.forest"),
	short: all(".first p.short"),
	members: all("svg.members"), untested: document.querySelectorAll("ul.verdict li.untested").length,
	columns: document.querySelectorAll(".first h3").length};
var pre = document.createElement("pre");
pre.id = "geom";
pre.textContent = JSON.stringify(g);
document.body.appendChild(pre);
EOF

# The report of $1 into $2.html, and the geometry of its first screen as
# JSON on stdout.
geometry() {
	"$STACKBENCH" report --format html "$1" >"$SB_TMP/$2.html" || fail "$2: report failed"
	! grep -qi '<script' "$SB_TMP/$2.html" || fail "$2: the report has a script"
	python3 -c '
import sys
s = open(sys.argv[1]).read()
open(sys.argv[3], "w").write(s.replace("</body>", "<script>" + open(sys.argv[2]).read() + "</script></body>"))
' "$SB_TMP/$2.html" "$SB_TMP/probe.js" "$SB_TMP/$2-probe.html" || fail "$2: probe copy"
	local dom
	dom=$(browse --dump-dom "file://$SB_TMP/$2-probe.html") ||
		fail "$2: chromium --dump-dom failed: $(tail -5 "$SB_TMP/chromium.log")"
	python3 -c '
import html, re, sys
m = re.search(r"<pre id=\"geom\">(.*?)</pre>", sys.stdin.read(), re.S)
print(html.unescape(m.group(1)) if m else "")' <<<"$dom"
}

g=$(geometry "$DEMO" demo)
[ -n "$g" ] || fail "demo: no geometry in the dumped DOM"
python3 -c '
import json, sys
g = json.loads(sys.argv[1])
assert g["page"] <= g["width"], ("the page scrolls sideways", g["page"], g["width"])
assert not g["wide"], ("wider than the page", g["wide"][:5])
assert g["verdict"] and g["verdict"][0]["bottom"] <= 900, ("verdict heading", g["verdict"])
assert g["columns"] >= 1 and len(g["lists"]) == g["columns"], g
assert all(l["bottom"] <= 900 for l in g["lists"]), ("verdict lines below 900", g["lists"])
assert len(g["short"]) == g["columns"] and all(l["bottom"] <= 900 for l in g["short"]), \
    ("a short line per comparison within 900", g["short"])
assert g["forest"] and all(f["bottom"] <= 900 for f in g["forest"]), \
    ("forest plots below 900", g["forest"])
assert g["members"] and g["members"][0]["bottom"] <= 900, ("member bars", g["members"])
' "$g" || fail "demo: first screen: $g"
for role in ssd hdd1 hdd2; do
	grep -q "class=\"mrole\"[^>]*>$role</text>" "$SB_TMP/demo.html" || fail "member role $role not named"
done
grep -q 'class="fval"[^>]*>[+-][0-9.]*% \[' "$SB_TMP/demo.html" || fail "forest plot: no value \"+x% [lo, hi]\""

# kept past the test's own directory (removed at its end), printed in its output
shot=${SB_SHOT_DIR:-/tmp}/stackbench-first-screen.png
browse --screenshot="$shot" "file://$SB_TMP/demo.html" >/dev/null || fail "chromium --screenshot failed"
[ "$(stat -c %s "$shot")" -gt 20000 ] || fail "screenshot suspiciously small"
echo "first screen of the demo's report (1400x900): $shot"

g1=$(geometry "$DEMO1" demo1)
python3 -c '
import json, sys
g = json.loads(sys.argv[1])
assert g["columns"] >= 1 and g["untested"] == g["columns"], \
    ("one untested line per variant expected", g["untested"], g["columns"])
assert all(l["bottom"] <= 900 for l in g["lists"]), ("verdict lines below 900", g["lists"])
assert g["page"] <= g["width"] and not g["wide"], ("wider than the page", g["wide"][:5])
' "$g1" || fail "one repeat: $g1"
n=$(grep -c '<li class="untested">' "$SB_TMP/demo1.html")
rows=$(grep -o '<li class="untested">untested, [0-9]* rows' "$SB_TMP/demo1.html" | grep -o '[0-9]* rows' | head -1)
pass_msg "demo report: verdict, forest plot and member bars within 1400x900, nothing wider; one repeat: $n untested lines for $rows a variant"
