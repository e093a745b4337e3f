package dev.lockstep.audit;

/**
 * The HTML timeline: one self-contained file (no network), the holds embedded as JSON and drawn
 * by a small script as one bar per hold (a row each, so a few hundred stay readable), owner and
 * token on the bar, times on hover; a hold granted to a waiter has its wait in the queue drawn as a
 * pale bar before it.
 */
final class Timeline {

    private Timeline() {
    }

    /** @param holdsJson {@code [{"resource": R, "holds": [...]}, ...]} */
    static String html(String holdsJson) {
        // '<' only occurs inside JSON strings, where \u003c means the same: no owner can close the script.
        String embedded = holdsJson.replace("<", "\\u003c");
        return PAGE.replace("@HOLDS@", embedded);
    }

    private static final String PAGE = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>lockstep audit</title>
            <style>
              body { font: 13px system-ui, sans-serif; margin: 1.5em; color: #222; }
              h2 { font-size: 15px; margin: 1.2em 0 0.3em; }
              .axis { fill: #666; font-size: 11px; }
              .hold rect { rx: 3; }
              .hold.released rect { fill: #4c78a8; }
              .hold.expired rect { fill: #e45756; }
              .hold.held rect { fill: #54a24b; }
              .hold rect.wait { fill: #c9c9c9; }
              .hold text { font-size: 11px; fill: #111; }
              .legend span { display: inline-block; padding: 0 0.6em; margin-right: 0.5em; border-radius: 3px; color: #fff; }
            </style>
            </head>
            <body>
            <h1>lockstep audit</h1>
            <p class="legend"><span style="background:#4c78a8">released</span><span style="background:#e45756">expired</span><span style="background:#54a24b">held</span><span style="background:#c9c9c9;color:#222">waited in the queue</span>
            Times are log times (UTC). Hover over a bar for its times.</p>
            <div id="timeline"></div>
            <script type="application/json" id="holds">@HOLDS@</script>
            <script>
            (function () {
              var resources = JSON.parse(document.getElementById('holds').textContent);
              var svgNs = 'http://www.w3.org/2000/svg';
              var width = 1100, left = 10, row = 20;
              var all = [];
              resources.forEach(function (r) { r.holds.forEach(function (h) { all.push(h); }); });
              var until = function (h) { return Date.parse(h.ended_at || h.expires_at); };
              var queued = function (h) { return Date.parse(h.acquired_at) - (h.waited_ms || 0); };
              var min = Math.min.apply(null, all.map(queued));
              var max = Math.max.apply(null, all.map(until));
              var span = Math.max(max - min, 1);
              var x = function (t) { return left + (t - min) / span * (width - left - 200); };
              var el = function (name, attrs, text) {
                var e = document.createElementNS(svgNs, name);
                Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
                if (text !== undefined) { e.textContent = text; }
                return e;
              };
              var root = document.getElementById('timeline');
              resources.forEach(function (r) {
                var title = document.createElement('h2');
                title.textContent = r.resource + ' (' + r.holds.length + ' holds)';
                root.appendChild(title);
                var svg = el('svg', { width: width, height: (r.holds.length + 1) * row + 10, role: 'img' });
                svg.appendChild(el('text', { x: left, y: 12, 'class': 'axis' }, new Date(min).toISOString()));
                svg.appendChild(el('text', { x: width - 200, y: 12, 'class': 'axis', 'text-anchor': 'end' },
                    new Date(max).toISOString()));
                r.holds.forEach(function (h, i) {
                  var y = (i + 1) * row;
                  var from = x(Date.parse(h.acquired_at)), to = x(until(h));
                  var g = el('g', { 'class': 'hold ' + h.end, 'data-owner': h.owner, 'data-token': h.fencing_token });
                  var label = h.owner + ' \\u00b7 #' + h.fencing_token + (h.taken_over ? ' (took over)' : '');
                  if (h.waited_ms !== undefined) {
                    g.setAttribute('data-waited', h.waited_ms);
                    var wait = el('rect', { 'class': 'wait', x: x(queued(h)), y: y,
                        width: Math.max(from - x(queued(h)), 1), height: row - 4 });
                    wait.appendChild(el('title', {}, h.owner + ' waited ' + h.waited_ms + ' ms in the queue'));
                    g.appendChild(wait);
                  }
                  var rect = el('rect', { x: from, y: y, width: Math.max(to - from, 2), height: row - 4 });
                  rect.appendChild(el('title', {}, label + ': ' + h.acquired_at + ' \\u2192 '
                      + (h.ended_at || h.expires_at + ' (expiry)') + ', ' + h.end));
                  g.appendChild(rect);
                  g.appendChild(el('text', { x: Math.max(to, from) + 4, y: y + row - 8 }, label));
                  svg.appendChild(g);
                });
                root.appendChild(svg);
              });
            })();
            </script>
            </body>
            </html>
            """;
}
