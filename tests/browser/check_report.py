#!/usr/bin/python3
"""Loads a report.html or compare.html in headless Chromium through the DevTools protocol and checks it.

    check_report.py --chromium /usr/bin/chromium --profile-dir DIR --screenshot OUT.png PAGE.html [--no-script] \
        [--chart regions --chart kernels ...] [--interact] [--compare TOTAL_NS]

Fails (exit 1) on an uncaught exception, a console error or assert, or a log
entry of level error (failed loads, Content-Security-Policy violations), on
a missing data-chart, and, with --interact, when sorting a table, filtering it
or zooming the region icicle does not do what it should, and, with --compare
(compare.html), when the waterfall's steps do not chain and end at the total
change TOTAL_NS (bars drawn that way, too) or sorting and filtering the first
comparison's kernel table fails. Exit 2: the harness
itself failed (no browser, no connection). Prints what it saw as JSON.
Uses only Debian's python3-websocket besides the standard library.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import time
import urllib.request

import websocket


class HarnessError(Exception):
    pass


class Browser:
    def __init__(self, chromium, profile_dir):
        os.makedirs(profile_dir, exist_ok=True)
        port_file = os.path.join(profile_dir, "DevToolsActivePort")
        if os.path.exists(port_file):
            os.remove(port_file)
        self.log = open(os.path.join(profile_dir, "chromium.log"), "wb")
        self.proc = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--hide-scrollbars", "--no-first-run", "--no-default-browser-check", "--mute-audio",
             "--window-size=1200,900", "--remote-debugging-port=0", "--user-data-dir=" + profile_dir,
             "about:blank"],
            stdout=self.log, stderr=subprocess.STDOUT)
        port = self._port(port_file)
        req = urllib.request.Request("http://127.0.0.1:%d/json/new?about:blank" % port, method="PUT")
        with urllib.request.urlopen(req, timeout=20) as resp:
            target = json.load(resp)
        self.ws = websocket.create_connection(target["webSocketDebuggerUrl"], timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def _port(self, port_file):
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise HarnessError("chromium exited with %s (see chromium.log)" % self.proc.returncode)
            try:
                with open(port_file) as f:
                    first = f.readline().strip()
                if first:
                    return int(first)
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise HarnessError("chromium did not open its DevTools port in 30 s")

    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise HarnessError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)

    def pump(self, seconds):
        """Collects events for `seconds`."""
        self.ws.settimeout(0.05)
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                pass
        self.ws.settimeout(30)

    def wait_event(self, method, seconds):
        end = time.time() + seconds
        while time.time() < end:
            if any(e.get("method") == method for e in self.events):
                return True
            self.pump(0.1)
        return False

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise HarnessError("evaluate failed: %s" % result["exceptionDetails"].get("text"))
        return result["result"].get("value")

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.log.close()


def page_errors(events):
    errors = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            errors.append("uncaught: %s %s (line %s)" % (d.get("text"), d.get("exception", {}).get("description", ""),
                                                         d.get("lineNumber")))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append("console.%s: %s" % (p["type"], " ".join(str(a.get("value", a.get("description")))
                                                                  for a in p.get("args", []))))
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            errors.append("log: %s %s" % (p["entry"].get("text"), p["entry"].get("url", "")))
        elif m == "Network.loadingFailed":
            errors.append("failed load: %s" % p.get("errorText"))
    return errors


# Interactions, run in the page; each returns a list of problems.
SORT_CHECK = r"""
(() => {
  const problems = [];
  const table = document.getElementById('kernel-table-t');
  const th = [...table.querySelectorAll('th')].find(h => h.textContent === 'Total (ms)');
  const col = [...th.parentNode.children].indexOf(th);
  const values = () => [...table.querySelectorAll('tbody tr')].map(r => parseFloat(r.children[col].textContent));
  th.click();
  let v = values();
  if (th.getAttribute('aria-sort') !== 'descending') problems.push('first click: not sorted descending');
  for (let i = 1; i < v.length; i++) if (v[i - 1] < v[i]) { problems.push('not descending at row ' + i); break; }
  th.click();
  v = values();
  if (th.getAttribute('aria-sort') !== 'ascending') problems.push('second click: not ascending');
  for (let i = 1; i < v.length; i++) if (v[i - 1] > v[i]) { problems.push('not ascending at row ' + i); break; }
  const name = table.querySelector('tbody tr td').textContent;
  const input = document.querySelector('input[data-filter-for="kernel-table-t"]');
  input.value = name;
  input.dispatchEvent(new Event('input'));
  const rows = [...table.querySelectorAll('tbody tr')];
  if (rows.length === 0 || rows.some(r => !r.textContent.toLowerCase().includes(name.toLowerCase())))
    problems.push('filter "' + name + '" shows rows without it');
  input.value = '';
  input.dispatchEvent(new Event('input'));
  return {problems, rows: values().length};
})()
"""

WATERFALL_CHECK = r"""
((want) => {
  const problems = [];
  const svg = document.querySelector('svg[data-chart="waterfall"]');
  if (!svg) return {problems: ['no waterfall'], bars: 0};
  const bars = [...svg.querySelectorAll('g.step rect')];
  const total = bars.pop();
  if (!total || total.getAttribute('class') !== 'total') problems.push('the last bar is not the total');
  const near = (a, b, tol) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));
  const end = r => {  // the drawn x of a bar's running sum after it
    const b = r.getBBox();
    return +r.dataset.toNs >= +r.dataset.fromNs ? b.x + b.width : b.x;
  };
  let sum = 0;
  bars.forEach((r, i) => {
    if (!near(+r.dataset.fromNs, sum, 1e-9)) problems.push('step ' + i + ' starts at ' + r.dataset.fromNs + ', not ' + sum);
    if (+r.dataset.deltaNs !== 0 && r.getBBox().width <= 0) problems.push('step ' + i + ' is not drawn');
    sum += +r.dataset.deltaNs;
  });
  const t = +total.dataset.deltaNs;
  if (!near(sum, t, 1e-9)) problems.push('the steps add up to ' + sum + ' ns, the total bar says ' + t);
  if (!near(t, want, 1e-9)) problems.push('the total bar says ' + t + ' ns, compare.json ' + want);
  if (bars.length && Math.abs(end(bars[bars.length - 1]) - end(total)) > 0.05)
    problems.push('the total bar ends at x ' + end(total) + ', the last step at ' + end(bars[bars.length - 1]));
  return {problems, bars: bars.length + 1, total_ns: t};
})
"""

# compare.html: rows drawn in each comparison's kernel table.
TABLE_ROWS = r"""
(() => Object.fromEntries([...document.querySelectorAll('table[data-table]')].map(
  t => [t.id, t.querySelectorAll('tbody tr').length])))()
"""

ZOOM_CHECK = r"""
(() => {
  const problems = [];
  const svg = document.querySelector('svg.icicle');
  if (!svg) return {problems: ['no icicle to zoom'], zoomed: null};
  const nodes = [...svg.querySelectorAll('g.node')];
  const target = nodes.find(g => +g.dataset.x1 - +g.dataset.x0 < 0.999) || nodes[nodes.length - 1];
  target.querySelector('rect').dispatchEvent(new MouseEvent('click', {bubbles: true}));
  const w = parseFloat(target.querySelector('rect').getAttribute('width'));
  if (Math.abs(w - 1000) > 0.01) problems.push('zoomed block is ' + w + ' wide, not the full 1000');
  if (svg.getAttribute('data-zoom') !== target.dataset.label) problems.push('data-zoom not set');
  document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'}));
  const back = parseFloat(target.querySelector('rect').getAttribute('width'));
  const expected = (+target.dataset.x1 - +target.dataset.x0) * 1000;
  if (Math.abs(back - expected) > 0.02) problems.push('Escape did not zoom out: ' + back + ' vs ' + expected);
  return {problems, zoomed: target.dataset.label};
})()
"""

STRUCTURE = r"""
(() => ({
  ready: document.body.getAttribute('data-ready'),
  charts: [...document.querySelectorAll('[data-chart]')].map(e => e.getAttribute('data-chart')),
  scripts: document.querySelectorAll('script').length,
  foreign: document.querySelectorAll('iframe, img, object, embed, link, base, form').length,
  injected: typeof window.__llmpo_injected !== 'undefined',
  kernel_rows: document.querySelectorAll('#kernel-table-t tbody tr').length,
  region_rows: document.querySelectorAll('#region-table-t tbody tr').length,
  icicle_nodes: document.querySelectorAll('svg.icicle g.node').length,
  title: document.title,
}))()
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--chromium", required=True)
    ap.add_argument("--profile-dir", required=True)
    ap.add_argument("--screenshot")
    ap.add_argument("--chart", action="append", default=[])
    ap.add_argument("--interact", action="store_true")
    ap.add_argument("--no-script", action="store_true", help="a page without script (sweep.html): none expected")
    ap.add_argument("--compare", type=float, metavar="TOTAL_NS",
                    help="compare.html: check the waterfall against this total change and the kernel table")
    ap.add_argument("--timing", action="store_true", help="report navigation-to-drawn time in ms")
    ap.add_argument("--section", action="append", default=[], help="a section id the page must have, with content")
    ap.add_argument("--ncu-table", action="store_true", help="sort and filter the per-kernel ncu table")
    args = ap.parse_args()

    page = os.path.abspath(args.page)
    try:
        browser = Browser(args.chromium, os.path.abspath(args.profile_dir))
    except (HarnessError, OSError) as e:
        print("harness: %s" % e, file=sys.stderr)
        return 2
    report, problems = {}, []
    try:
        for domain in ("Runtime", "Log", "Page", "Network"):
            browser.call(domain + ".enable")
        start = time.time()
        browser.call("Page.navigate", url="file://" + page)
        if not browser.wait_event("Page.loadEventFired", 60):
            raise HarnessError("no load event in 60 s")
        # Drawn: two animation frames after the script marked the page ready.
        browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        report["load_and_draw_ms"] = round((time.time() - start) * 1000)
        browser.pump(0.3)
        s = browser.evaluate(STRUCTURE)
        report["structure"] = s
        if args.no_script:
            if s["scripts"] != 0:
                problems.append("%d script elements in a page without script (markup injected?)" % s["scripts"])
        elif s["ready"] != "1":
            problems.append("the page script did not finish (data-ready unset)")
        for chart in args.chart:
            if chart not in s["charts"]:
                problems.append("no data-chart=%r" % chart)
        if s["scripts"] != 2 and not args.no_script:
            problems.append("%d script elements, expected 2 (markup injected?)" % s["scripts"])
        if s["foreign"] or s["injected"]:
            problems.append("elements or script from the data: %s" % s)
        if args.interact:
            for name, check in (("sort", SORT_CHECK), ("zoom", ZOOM_CHECK)):
                r = browser.evaluate(check)
                report[name] = r
                problems += ["%s: %s" % (name, p) for p in r["problems"]]
        for section in args.section:
            rows = browser.evaluate("(() => { const s = document.getElementById(%r); "
                                    "return s ? s.querySelectorAll('tr').length : -1; })()" % section)
            if rows < 2:
                problems.append("section %r: %s" % (section, "missing" if rows < 0 else "no table rows"))
        if args.ncu_table:
            sort = SORT_CHECK.replace("kernel-table-t", "ncu-table-t").replace("Total (ms)", "SM %")
            r = browser.evaluate(sort)
            report["ncu_sort"] = r
            problems += ["ncu table sort: %s" % p for p in r["problems"]]
            if r["rows"] < 1:
                problems.append("ncu table: no rows drawn")
        if args.compare is not None:
            report["table_rows"] = browser.evaluate(TABLE_ROWS)
            sort = SORT_CHECK.replace("kernel-table-t", "kernels-0-t").replace("Total (ms)", "Change (ms)")
            for name, check in (("waterfall", WATERFALL_CHECK + "(%r)" % args.compare), ("sort", sort)):
                r = browser.evaluate(check)
                report[name] = r
                problems += ["%s: %s" % (name, p) for p in r["problems"]]
        browser.pump(0.2)
        if args.screenshot:
            # The whole page, up to 8000 px tall.
            size = browser.call("Page.getLayoutMetrics")["cssContentSize"]
            clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}
            shot = browser.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)
            with open(args.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        problems = page_errors(browser.events) + problems
    except (HarnessError, websocket.WebSocketException, OSError) as e:
        print("harness: %s" % e, file=sys.stderr)
        return 2
    finally:
        browser.close()
    report["problems"] = problems
    print(json.dumps(report, indent=1))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
