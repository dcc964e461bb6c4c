/* Browser-side behaviour of the dashboard.
 *
 * - The gate: while a view's request is on its way, slider moves are held back and only the
 *   newest is sent once Dash has stored the answer — at most one request per view in flight, the
 *   newest value always wins, and a drag costs the server a request per round trip, not per
 *   pointer event (app/core/view.py answers each request with its sequence number). Plots
 *   out of sight are left as they are and brought up to date when they come into view.
 * - The play bar's cursor: scrubbing and Play move the "current time" marker of every plot in
 *   the browser, without a round trip and without re-sending any figure: an overlay on 2-D
 *   plots (no plotly redraw), Plotly.restyle on 3-D scenes and matrices. Play runs on
 *   requestAnimationFrame.
 * - Resending: a callback whose answer does not arrive whole is sent again.
 * - A 3-D scene draws after the flat plots of the same answer, which paint first (without a
 *   GPU a scene takes ~0.6 s to draw).
 * - Number boxes: a typed value is clamped to its control's range, and the slider, the box,
 *   the link and a note under the control all say what is used.
 * - Accessible names and values for sliders (log sliders announce the value, not its log),
 *   and a view that takes long to answer says that it is computing.
 * - On touch screens a swipe over a plot scrolls the page; "Interact" hands the plot the touch.
 * - Escape closes the Maps menu; plot toolbars and formulas are out of the tab order.
 *
 * Besides Dash's documented extension points (clientside callbacks, dash_clientside.set_props,
 * callback_context, dccFunctions), three private details are relied on — the callback route's
 * name, its response's format (readAnswers) and dcc.Graph drawing through the page's
 * Plotly.react — and tests/unit/test_browser_contract.py checks them against the installed
 * Dash, so that an upgrade that changes them fails there.
 */
(function () {
  "use strict";

  function format(value) {
    if (!isFinite(value)) { return String(value); }
    var magnitude = Math.abs(value);
    if (magnitude !== 0 && (magnitude < 1e-3 || magnitude >= 1e4)) { return value.toExponential(2); }
    return Number(value.toPrecision(4)).toString();
  }

  function clampIndex(index, count) {
    var i = Math.round(Number(index) || 0);
    return Math.max(0, Math.min(count - 1, i));
  }

  function noUpdate() { return window.dash_clientside.no_update; }

  function triggered() {
    var context = window.dash_clientside.callback_context;
    return (context && context.triggered) ? context.triggered.map(function (t) { return t.prop_id; }) : [];
  }

  /* ---- the gate: one request in flight per view, the newest value wins ----------------- */

  /* The server callback reads the controls' values itself (as State) when the gate lets a
   * request through, so whatever goes out is the newest; its answer says which values it
   * answered and what the page shows, and the next request sends that back as "drawn" so
   * that the server answers with only the differences. Answers are read where they arrive
   * (readAnswers), but the gate is free again only once Dash has stored the answer (its
   * "-answered" store changed: applied): Dash drops the answer of a callback still on its way
   * when the same callback is asked again, so a request sent in between would lose the plots
   * and the job ticket the answer brought, and be answered against what the page no longer
   * shows. A control moved meanwhile then wakes the gate through its "wake" store — Dash does
   * not call a callback again from the chain it started itself. */
  var GATE_TIMEOUT_MS = 15000;  // an answer that never came (a failed request) frees the gate
  var STORED_MS = 3000;  // an answer read but never stored (Dash dropped it) frees the gate
  var gates = {};

  function sameValues(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

  function gateOf(key) {
    if (!gates[key]) {
      gates[key] = {
        key: key, seq: 0, inflight: null, answered: null, theme: null, drawn: null, timer: 0,
        moved: false, force: false, stale: [], visible: {}, missed: {}, watched: new WeakSet(),
        observer: null, root: null
      };
    }
    return gates[key];
  }

  /* Slow answers (a large map) are announced: after BUSY_MS the view shows that it is
   * computing (a bar over the plots, aria-busy for screen readers). */
  var BUSY_MS = 300;

  function busy(key, on) {
    var node = document.getElementById(key + "-view");
    if (!node) { return; }
    node.classList.toggle("is-computing", on);
    node.setAttribute("aria-busy", on ? "true" : "false");
  }

  /* The page's colour theme: the one an embed's link names (theme=light|dark, on the view's
   * root), else the system's. */
  function theme(key) {
    var root = key ? document.getElementById(key + "-view") : null;
    var named = root ? root.getAttribute("data-theme") : null;
    if (named === "light" || named === "dark") { return named; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches
      ? "dark" : "light";
  }

  /* The stylesheet follows the theme the view names (style.css: html[data-theme]). */
  function applyTheme() {
    var root = document.querySelector(".view[data-theme]");
    var named = root ? root.getAttribute("data-theme") : null;
    var html = document.documentElement;
    if (named && html.getAttribute("data-theme") !== named) { html.setAttribute("data-theme", named); }
    if (!named && html.hasAttribute("data-theme")) { html.removeAttribute("data-theme"); }
  }

  function wake(key) {
    window.dash_clientside.set_props(key + "-wake", {data: Date.now()});
  }

  /* ---- plots out of sight wait ------------------------------------------------------------ */

  /* Redrawing a plot nobody can see costs as much as one in view (a plot takes 15–25 ms to
   * redraw, a 3-D scene more without a GPU), and most of a view's plots are below the fold.
   * The request names the plots out of sight; the server leaves them as they are and the
   * answer lists them as stale; one that comes into view is brought up to date (from its
   * first pixel in view: a margin would draw plots nobody sees yet on every step). */
  var NEAR = "0px";

  function graphName(key, node) { return node.id.slice(key.length + "-graph-".length); }

  function watch(gate) {
    if (!window.IntersectionObserver) { return; }
    if (!gate.observer) {
      gate.observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          var graph = graphName(gate.key, entry.target);
          var shown = views[gate.key];
          gate.visible[graph] = entry.isIntersecting;
          // a matrix or 3-D cursor that Play or the scrubber left behind while out of sight
          // (a stale plot is redrawn whole anyway)
          var current = gate.stale.indexOf(graph) === -1;
          if (entry.isIntersecting && gate.missed[graph]) {
            delete gate.missed[graph];
            if (current && shown && shown.frames) {
              restyle(plotOf(gate.key, graph), graph, shown.frames, shown.index);
            }
          }
        });
        if (staleInView(gate)) { refresh(gate); }
      }, {rootMargin: NEAR});
    }
    var nodes = document.querySelectorAll(".dash-graph[id^='" + gate.key + "-graph-']");
    for (var n = 0; n < nodes.length; n++) {
      if (!gate.watched.has(nodes[n])) {
        gate.watched.add(nodes[n]);
        gate.observer.observe(nodes[n]);
      }
    }
  }

  /* Plots an embed does not show (their cards are hidden: app/core/layout.py) are never in
   * view; they are not drawn at all. */
  function leftOut(gate) {
    var graphs = document.querySelectorAll("#" + gate.key + "-plots > .graph-card[hidden] .dash-graph");
    return Array.prototype.map.call(graphs, function (node) { return graphName(gate.key, node); });
  }

  /* A plot never reported on (not yet drawn, no IntersectionObserver) counts as in view. */
  function hidden(gate) {
    var out = Object.keys(gate.visible).filter(function (graph) { return gate.visible[graph] === false; });
    leftOut(gate).forEach(function (graph) { if (out.indexOf(graph) === -1) { out.push(graph); } });
    return out;
  }

  function staleInView(gate) {
    var out = leftOut(gate);
    return gate.stale.some(function (graph) {
      return gate.visible[graph] !== false && out.indexOf(graph) === -1;
    });
  }

  /* Ask again for the same values: the stale plots now in view get their figures. */
  function refresh(gate) {
    gate.force = true;
    if (gate.inflight) { gate.moved = true; } else { wake(gate.key); }
  }

  function send(gate, frame) {
    gate.seq += 1;
    gate.inflight = {seq: gate.seq, at: Date.now()};
    gate.moved = false;
    gate.force = false;
    clearTimeout(gate.timer);
    gate.timer = setTimeout(function () { busy(gate.key, true); }, BUSY_MS);
    return {seq: gate.seq, frame: frame, theme: theme(gate.key), drawn: gate.drawn,
            hidden: hidden(gate), stale: gate.stale, left_out: leftOut(gate)};
  }

  /* The server's answer to the request in flight: the values it answered for, what the page
   * shows now (or null: unknown), and that the gate is free again. */
  function answer(key, answered) {
    var gate = gateOf(key);
    if (!answered || typeof answered !== "object" || !gate.inflight) { return; }
    if (answered.seq !== gate.inflight.seq || gate.inflight.read) { return; }
    gate.inflight.read = true;
    clearTimeout(gate.timer);
    gate.timer = setTimeout(function () { if (free(key, answered.seq)) { wake(key); } }, STORED_MS);
    busy(key, false);
    gate.answered = answered.values;
    gate.theme = answered.theme;
    gate.drawn = answered.drawn || null;
    gate.stale = Array.isArray(answered.stale) ? answered.stale : [];
    watch(gate);  // plots drawn since the last look
    if (staleInView(gate)) { gate.force = true; gate.moved = true; }
    obeyWaiting();  // a course page's messages that came before the view was ready
  }

  /* Dash has stored the answer to the request in flight (or gave up on it): the gate is free;
   * whether a control moved meanwhile (the caller wakes the gate to send its value). */
  function free(key, seq) {
    var gate = gateOf(key);
    if (!gate.inflight || gate.inflight.seq !== seq) { return false; }
    gate.inflight = null;
    clearTimeout(gate.timer);
    return gate.moved;
  }

  /* A background job ended: the gate will ask again, woken through Dash's own chain (its
   * "-job-done" store wakes it, assets/jobs.js), so that the server callback reads how the job
   * ended (an answer read here may come before Dash has stored it). */
  function jobDone(key) {
    gateOf(key).force = true;
  }

  /* A view opened again (navigating back to it) is a new page with empty plots: what the
   * gate knew of the old one no longer holds. */
  function freshPage(gate) {
    var root = document.getElementById(gate.key + "-view");
    if (root === gate.root) { return; }
    gate.root = root;
    gate.answered = null;
    gate.drawn = null;
    gate.stale = [];
    gate.visible = {};
    gate.missed = {};
  }

  function gateFor(key, values, frame) {
    var gate = gateOf(key);
    freshPage(gate);
    watch(gate);
    if (gate.inflight && Date.now() - gate.inflight.at < GATE_TIMEOUT_MS) {
      gate.moved = true;  // sent when the answer comes, with the values of that moment
      return noUpdate();
    }
    // nothing new to ask (also after a failed answer: the same values would fail again)
    var same = gate.answered !== null && sameValues(values, gate.answered);
    if (same && gate.theme === theme(key) && !gate.force) { return noUpdate(); }
    return send(gate, frame);
  }

  /* The address bar follows what a view shows, in place: Back leaves the view (with a new
   * history entry per change, Back would step through slider positions, and from a view
   * opened by a bare link would come back to the same view). Not once the page has moved on
   * to another view: an answer can arrive after the navigation. */
  function showLink(key, search) {
    if (typeof search !== "string" || !document.getElementById(key + "-view")) { return; }
    try {
      var url = new URL(window.location.href);
      var frame = url.searchParams.get("frame");  // the play bar's, kept by the page itself
      url.search = search;
      if (frame !== null && !url.searchParams.has("frame")) { url.searchParams.set("frame", frame); }
      if (url.href !== window.location.href) {
        window.history.replaceState(window.history.state, "", url.toString());
      }
    } catch (error) { /* not fatal */ }
  }

  /* Answers, links and finished jobs, read from the responses as they arrive (the fetch
   * below): Dash would hold back a callback reading them while a background job of the view
   * runs, and the page would wait for the job to show a new answer. This reads Dash's
   * response format ({"response": {id: {prop: value}}}), which tests/unit/
   * test_browser_contract.py checks against the installed Dash. */
  function readAnswers(text) {
    if (text.indexOf('-answered"') === -1 && text.indexOf('-job-done"') === -1) { return; }
    var response;
    try { response = JSON.parse(text).response; } catch (error) { return; }
    var found = {};
    Object.keys(response || {}).forEach(function (id) {
      var kind = ["-link", "-answered", "-job-done"].find(function (s) { return id.endsWith(s); });
      if (!kind) { return; }
      var key = id.slice(0, -kind.length);
      found[key] = found[key] || {};
      found[key][kind] = response[id].data;
    });
    Object.keys(found).forEach(function (key) {
      var got = found[key];
      if ("-answered" in got) { answer(key, got["-answered"]); }
      if ("-link" in got) {
        showLink(key, got["-link"]);
        if ("-answered" in got) { correct(key, got["-answered"], got["-link"]); }
        announce(key, got["-link"]);
      }
      if ("-job-done" in got) { jobDone(key); }
    });
  }

  /* ---- number boxes and values the server changed ------------------------------------------ */

  /* What a numeric control's box (components.control) says about it. */
  function specOf(control) {
    return {
      name: control.getAttribute("data-name") || "",
      low: Number(control.getAttribute("data-low")),
      high: Number(control.getAttribute("data-high")),
      integer: control.getAttribute("data-kind") === "int",
      log: control.getAttribute("data-scale") === "log"
    };
  }

  function toControl(spec, value) { return spec.log ? Math.log10(value) : value; }
  function fromControl(spec, value) {
    if (!spec.log) { return Number(value); }
    var number = Math.pow(10, Number(value));
    return spec.integer ? Math.round(number) : number;  // (a whole number's log slider)
  }

  /* As components.box_text writes it. */
  function boxText(spec, value) {
    if (!isFinite(value)) { return ""; }
    if (spec.integer) { return String(Math.round(value)); }
    if (spec.log) { return format(value); }
    return String(Number(value.toPrecision(10)));
  }

  function parseTyped(text) {
    if (typeof text === "number") { return isFinite(text) ? text : null; }
    var trimmed = String(text === null || text === undefined ? "" : text).trim().replace(",", ".");
    if (!trimmed || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) { return null; }
    var number = Number(trimmed);
    return isFinite(number) ? number : null;
  }

  /* A typed value as the control can take it: (value used, what was changed or ""). */
  function clampTyped(spec, typed, number) {
    var used = Math.min(Math.max(number, spec.low), spec.high);
    var note = "";
    if (used !== number) {
      note = spec.name + ": " + typed + " is outside [" + format(spec.low) + ", " +
        format(spec.high) + "], so " + boxText(spec, used) + " is used.";
    }
    if (spec.integer && Math.round(used) !== used) {
      used = Math.round(used);
      note = note || spec.name + ": " + typed + " is not a whole number, so " + used + " is used.";
    }
    return [used, note];
  }

  function closeTo(a, b) { return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)); }

  /* The server used other values than the controls asked for (a cap that depends on other
   * controls, app/core/state.py): the controls are set to what was used — the link says it —
   * unless they have moved on since. The gate takes them as answered: the message that says
   * what changed stays. */
  function correct(key, answered, search) {
    var gate = gateOf(key);
    if (!answered || !Array.isArray(answered.values) || !gate.ids || typeof search !== "string") { return; }
    var params = new URLSearchParams(search);
    params.forEach(function (text, name) {
      var index = gate.ids.indexOf(key + "-" + name);
      var slider = document.getElementById(key + "-" + name);
      var control = slider && slider.closest(".control[data-kind]");
      var thumb = slider && slider.querySelector("[role=slider]");
      if (index < 0 || !control || !thumb) { return; }
      var spec = specOf(control), asked = Number(answered.values[index]);
      var used = toControl(spec, Number(text));
      var shown = Number(thumb.getAttribute("aria-valuenow"));
      var tolerance = spec.log ? 1e-6 : 1e-9;
      if (!isFinite(used) || Math.abs(used - asked) <= tolerance * Math.max(1, Math.abs(asked))) { return; }
      if (!closeTo(shown, asked)) { return; }  // moved on: the next answer is for that
      window.dash_clientside.set_props(slider.id, {value: used});
      if (gate.answered && gate.answered.length > index) { gate.answered[index] = used; }
    });
  }

  /* ---- the play bar: cursors moved on the plots themselves ------------------------------- */

  /* On 2-D plots the "current time" is an overlay — a line or dots positioned over the plot
   * with CSS, from the plot's own axes — so scrubbing and Play cost no plotly redraw at all.
   * 3-D scenes and animated matrices are moved with Plotly.restyle (their data changes). */
  var views = {};      // key → {frames, index}
  var players = {};

  function plotOf(key, graph) {
    return document.querySelector("#" + key + "-graph-" + graph + " .js-plotly-plot");
  }

  function at(series, i) { return Array.isArray(series[i]) ? series[i] : [series[i]]; }

  function layerOf(gd) {
    var layer = gd.querySelector(":scope > .cursor-layer");
    if (!layer) {
      layer = document.createElement("div");
      layer.className = "cursor-layer";
      layer.setAttribute("aria-hidden", "true");
      gd.appendChild(layer);
    }
    return layer;
  }

  function marks(layer, className, count) {
    var found = layer.getElementsByClassName(className);
    while (found.length < count) {
      var mark = document.createElement("div");
      mark.className = className;
      layer.appendChild(mark);
    }
    while (found.length > count) { layer.removeChild(found[found.length - 1]); }
    return found;
  }

  function pixel(axis, value) { return axis._offset + axis.l2p(axis.d2l(value)); }

  function inside(axis, px) { return px >= axis._offset - 1 && px <= axis._offset + axis._length + 1; }

  /* Lines and dots of one 2-D plot at frame i; false where the plot is not drawn yet. */
  function overlay(gd, graph, frames, i) {
    var full = gd && gd._fullLayout;
    if (!full || !full.xaxis || !full.yaxis || full.scene) { return false; }
    var xa = full.xaxis, ya = full.yaxis, layer = layerOf(gd);
    var line = frames.lines && frames.lines[graph];
    var lines = marks(layer, "time-line", line ? 1 : 0);
    if (line) {
      var x = pixel(xa, line[i]);
      lines[0].style.cssText = "left:" + x + "px;top:" + ya._offset + "px;height:" + ya._length + "px";
      lines[0].hidden = !isFinite(x) || !inside(xa, x);
    }
    var point = frames.cursor && frames.cursor[graph];
    var xs = point && !point.z ? at(point.x, i) : [];
    var ys = point && !point.z ? at(point.y, i) : [];
    var dots = marks(layer, "time-dot", xs.length);
    for (var k = 0; k < xs.length; k++) {
      var px = pixel(xa, xs[k]), py = pixel(ya, ys[k]);
      dots[k].style.cssText = "left:" + px + "px;top:" + py + "px";
      dots[k].hidden = !isFinite(px) || !isFinite(py) || !inside(xa, px) || !inside(ya, py);
    }
    return true;
  }

  /* 3-D markers and animated matrices: their data changes, so plotly redraws them. */
  function restyle(gd, graph, frames, i) {
    if (!gd || !gd.data || !window.Plotly) { return null; }
    var point = frames.cursor && frames.cursor[graph];
    var heat = frames.heatmaps && frames.heatmaps[graph];
    var index = gd.data.findIndex(function (trace) { return trace.uid === "cursor"; });
    if (index < 0 || !(heat || (point && point.z))) { return null; }
    var update = heat ? {z: [heat[i]]} : {x: [at(point.x, i)], y: [at(point.y, i)], z: [at(point.z, i)]};
    return window.Plotly.restyle(gd, update, [index]);
  }

  function isScene(gd) { return Boolean(gd && gd._fullLayout && gd._fullLayout.scene); }

  /* Every cursor of a view at frame i. Data-driven ones (matrices, also in 2-D plots with
   * an overlay, and 3-D scenes if ``scenes``) only if ``withData``. */
  function moveAll(key, i, withData, scenes) {
    var view = views[key];
    if (!view || !view.frames) { return Promise.resolve(); }
    view.index = i;
    var work = [];
    var gate = gateOf(key);
    (view.frames.order || []).forEach(function (graph) {
      var gd = plotOf(key, graph);
      var overlaid = overlay(gd, graph, view.frames, i);
      var matrix = view.frames.heatmaps && view.frames.heatmaps[graph];
      if ((overlaid && !matrix) || !withData) { return; }
      if (gate.visible[graph] === false) {  // moved when it comes into view (watch)
        gate.missed[graph] = true;
        return;
      }
      if (isScene(gd) && scenes === false) { return; }
      var done = restyle(gd, graph, view.frames, i);
      if (done) { work.push(done); }
    });
    return Promise.all(work);
  }

  /* A plot that (re)draws — a new answer, a resize, a zoom — gets its overlay back in place. */
  function follow(key, graph) {
    var gd = plotOf(key, graph);
    if (!gd || gd.__lazyRichFollows || !gd.on) { return; }
    gd.__lazyRichFollows = true;
    gd.on("plotly_afterplot", function () {
      var view = views[key];
      if (view && view.frames) { overlay(gd, graph, view.frames, view.index); }
    });
  }

  function label(frames, i) { return "t = " + format(frames.t[i]); }

  function rememberFrame(i) {
    try {  // the frame is part of the link, without adding a history entry
      var url = new URL(window.location.href);
      url.searchParams.set("frame", String(i));
      window.history.replaceState(window.history.state, "", url.toString());
    } catch (error) { /* not fatal */ }
  }

  /* Play: frames advance with the clock (FPS a second). Overlays follow every frame; matrices
   * and the scrubber every DATA_MS; 3-D scenes as often as their drawing allows: a scene that
   * takes T ms to draw (a large part of a second where it is rendered in software, without a
   * GPU) is redrawn at most every SCENE_SHARE⁻¹·T ms, so that the 2-D cursors keep moving. */
  var FPS = 40;
  var DATA_MS = 250;
  var SCENE_SHARE = 0.1;

  function sceneEvery(player) { return Math.max(DATA_MS, player.sceneCost / SCENE_SHARE); }

  function play(key, start, last) {
    var player = {running: true, index: start, busy: false, data: 0, scene: 0, scrubber: 0,
                  sceneCost: 0};
    players[key] = player;
    announce(key);
    var began = performance.now();
    var labelNode = document.getElementById(key + "-frame-label");
    function step(now) {
      if (!player.running) { return; }
      var i = Math.min(last, start + Math.floor((now - began) * FPS / 1000));
      if (i !== player.index) {
        player.index = i;
        var withData = !player.busy && (now - player.data > DATA_MS || i >= last);
        var scenes = withData && (now - player.scene > sceneEvery(player) || i >= last);
        if (withData) {
          player.busy = true;
          player.data = now;
          if (scenes) { player.scene = now; }
          moveAll(key, i, true, scenes).then(function () {
            player.busy = false;
            if (scenes) { player.sceneCost = performance.now() - now; }
          });
        } else {
          moveAll(key, i, false);
        }
        if (labelNode) { labelNode.textContent = label(views[key].frames, i); }
        if (now - player.scrubber > DATA_MS) {
          player.scrubber = now;
          window.dash_clientside.set_props(key + "-frame", {value: i});
        }
      }
      if (i >= last) { stop(key); return; }
      window.requestAnimationFrame(step);
    }
    window.requestAnimationFrame(step);
  }

  function stop(key) {
    var player = players[key];
    if (!player || !player.running) { return; }
    player.running = false;
    // hand the position back to the page: the slider, the link and the button
    window.dash_clientside.set_props(key + "-frame", {value: player.index});
    window.dash_clientside.set_props(key + "-play", {children: "▶ Play"});
    rememberFrame(player.index);
    announce(key);
  }

  function viewKey(suffix) {
    var context = window.dash_clientside.callback_context;
    var out = context && context.outputs_list;
    var first = Array.isArray(out) ? out[0] : out;
    return first && typeof first.id === "string" ? first.id.slice(0, -suffix.length) : "";
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lazyRich: {
      /* controls (…), wake, frame → the request the server callback reads */
      gate: function () {
        var args = Array.prototype.slice.call(arguments);
        var frame = args.pop();
        var woken = args.pop();  // the wake store: only the call matters, or it forces one
        var key = viewKey("-request");
        if (woken && typeof woken === "object" && woken.force) { gateOf(key).force = true; }
        var inputs = window.dash_clientside.callback_context.inputs_list || [];
        gateOf(key).ids = inputs.slice(0, args.length).map(function (item) { return item.id; });
        return gateFor(key, args, Number(frame) || 0);
      },

      /* the view's "-answered" store changed: Dash has stored an answer (read here too if
       * readAnswers missed it), and the gate is free. A callback without outputs: a control
       * moved meanwhile wakes the gate in a chain of its own (this one started at the gate). */
      applied: function (answered) {
        var context = window.dash_clientside.callback_context;
        var trigger = context && context.triggered && context.triggered[0];
        var id = trigger && typeof trigger.prop_id === "string" ? trigger.prop_id : "";
        var suffix = "-answered.data";
        if (!id.endsWith(suffix) || !answered || typeof answered !== "object") { return; }
        var key = id.slice(0, -suffix.length);
        answer(key, answered);
        if (free(key, answered.seq)) { wake(key); }
      },

      /* slider ⇄ number box: a typed value (on Enter or leaving the box) is clamped, and the
       * slider, the box and the note under the control say what is used */
      box: function (value, typed) {
        var out = window.dash_clientside.callback_context.outputs_list;
        var ident = Array.isArray(out) && out[0] ? String(out[0].id) : "";
        var node = document.getElementById(ident);
        var control = node && node.closest(".control[data-kind]");
        if (!control) { return [noUpdate(), noUpdate(), noUpdate()]; }
        var spec = specOf(control), current = fromControl(spec, value);
        var byBox = triggered().some(function (id) { return id.endsWith("-box.value"); });
        if (!byBox) { return [noUpdate(), boxText(spec, current), ""]; }
        var number = parseTyped(typed);
        if (number === null) {
          var kept = spec.name + ": " + JSON.stringify(String(typed || "")).slice(0, 40) +
            " is not a number, so it stays " + boxText(spec, current) + ".";
          return [noUpdate(), boxText(spec, current), kept];
        }
        var clamped = clampTyped(spec, String(typed).trim(), number);
        var slider = toControl(spec, clamped[0]);
        return [closeTo(slider, Number(value)) ? noUpdate() : slider, boxText(spec, clamped[0]), clamped[1]];
      },

      /* the cancel button of a background job: say so where the page said it was computing,
       * and hide the job's bar */
      cancelled: function (clicks, timing) {
        if (!clicks) { return [noUpdate(), noUpdate()]; }
        return ["Cancelled: the plots keep what they showed before.", true];
      },

      /* frame slider or new frames → the cursors and the label. New frames come with plots
       * the server drew at the current frame: only the overlays need placing. */
      scrub: function (index, frames) {
        if (!frames || !frames.t || !frames.t.length) { return noUpdate(); }
        var key = viewKey("-frame-label");
        var i = clampIndex(index, frames.t.length);
        var bySlider = triggered().some(function (id) { return id.endsWith("-frame.value"); });
        views[key] = {frames: frames, index: i};
        (frames.order || []).forEach(function (graph) { follow(key, graph); });
        var player = players[key];
        if (!(player && player.running)) {
          moveAll(key, i, bySlider);
          if (bySlider) { rememberFrame(i); }
        }
        return label(frames, i);
      },

      togglePlay: function (clicks, value, last, frames) {
        var key = viewKey("-play");
        var player = players[key];
        if (player && player.running) {
          stop(key);
          return "▶ Play";
        }
        if (!frames || !frames.t || frames.t.length < 2 || !views[key]) { return noUpdate(); }
        var end = Math.min(Number(last) || 0, frames.t.length - 1);
        var start = (Number(value) || 0) >= end ? 0 : (Number(value) || 0);
        play(key, start, end);
        return "❚❚ Pause";
      }
    }
  });

  /* Log-scale sliders work on log10 of the value; their tooltip shows the value itself. */
  window.dccFunctions = Object.assign({}, window.dccFunctions, {
    lazyRichPow10: function (exponent) { return format(Math.pow(10, exponent)); },
    lazyRichPow10Whole: function (exponent) { return String(Math.round(Math.pow(10, exponent))); }
  });

  /* The plots follow the system's colour scheme when it changes: every view's gate is woken
   * and asks for the plots in the new theme. */
  if (window.matchMedia) {
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", function () {
      Object.keys(gates).forEach(wake);
    });
  }

  /* ---- 3-D scenes at the screen's resolution ----------------------------------------------- */

  /* plotly renders WebGL scenes at twice the screen's pixels by default; on a screen of one
   * device pixel per CSS pixel that is four times the pixels for nothing visible — and where
   * WebGL is rendered in software (no GPU) it costs tens of milliseconds a frame. Scenes use
   * the screen's own ratio (at most 2), set as plotly's default as soon as plotly loads. */
  function screenRatio(plotly) {
    if (plotly && plotly.setPlotConfig) {
      plotly.setPlotConfig({plotGlPixelRatio: Math.min(2, Math.max(1, window.devicePixelRatio || 1))});
    }
  }
  if (window.Plotly) {
    screenRatio(window.Plotly);
  } else {
    Object.defineProperty(window, "Plotly", {
      configurable: true,
      enumerable: true,
      get: function () { return undefined; },
      set: function (plotly) {
        Object.defineProperty(window, "Plotly", {
          value: plotly, writable: true, configurable: true, enumerable: true
        });
        screenRatio(plotly);
      }
    });
  }

  /* ---- accessible names and values for the sliders ----------------------------------------- */

  /* Dash's sliders take no ARIA attributes: their thumbs and number boxes get the label of
   * their control (its box says which, components.control), and sliders over decades
   * announce the value itself rather than its logarithm. */
  function nameControls(root) {
    var boxes = root.querySelectorAll("[data-label]");
    for (var b = 0; b < boxes.length; b++) {
      var box = boxes[b], labelId = box.getAttribute("data-label");
      var log = box.getAttribute("data-scale") === "log";
      var whole = box.getAttribute("data-kind") === "int";
      var parts = box.querySelectorAll("[role=slider], .control-box input");
      for (var p = 0; p < parts.length; p++) {
        if (parts[p].getAttribute("aria-labelledby") !== labelId) {
          parts[p].setAttribute("aria-labelledby", labelId);
        }
        var now = parts[p].getAttribute("aria-valuenow");
        if (log && now !== null) {
          var value = Math.pow(10, Number(now));
          var text = whole ? String(Math.round(value)) : format(value);  // (as its box says it)
          if (parts[p].getAttribute("aria-valuetext") !== text) {
            parts[p].setAttribute("aria-valuetext", text);
          }
        }
      }
    }
  }

  /* On a phone the controls are a sheet along the bottom (style.css); it starts folded, so
   * that the plots come first, and "Controls" opens it. */
  function foldOnPhones(root) {
    if (!window.matchMedia || !window.matchMedia("(max-width: 900px)").matches) { return; }
    var panels = root.querySelectorAll(".sidebar-panel:not([data-folded])");
    for (var k = 0; k < panels.length; k++) {
      panels[k].setAttribute("data-folded", "1");
      panels[k].open = false;
    }
  }

  /* ---- the keyboard: one tab stop per control ------------------------------------------------ */

  /* A plot's toolbar (six buttons a plot, forty on a view) would come between the controls
   * and the plots. It stays reachable by pointer and touch (its numbers are the CSV and JSON
   * downloads). */
  function outOfTabOrder(root) {
    var stops = root.querySelectorAll(".modebar-btn:not([tabindex='-1'])");
    for (var k = 0; k < stops.length; k++) { stops[k].setAttribute("tabindex", "-1"); }
  }

  /* Escape closes an open menu (the Maps menu of the bar) and gives the focus back to it; a
   * click elsewhere closes it too. */
  function closeMenus(except) {
    var open = document.querySelectorAll("details.nav-maps[open]");
    var closed = null;
    for (var k = 0; k < open.length; k++) {
      if (open[k] === except) { continue; }
      if (open[k].contains(document.activeElement)) { closed = open[k]; }
      open[k].open = false;
    }
    return closed;
  }
  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") { return; }
    var closed = closeMenus(null);
    if (closed) { closed.querySelector("summary").focus(); }
  });

  /* A tap on "Interact with the plot" hands that plot the touch (a transparent shield over it
   * lets a swipe scroll the page otherwise: style.css); pressed again, the page has it back. */
  function interact(button) {
    var card = button.closest(".graph-card");
    if (!card) { return; }
    var on = card.classList.toggle("touch-on");
    button.setAttribute("aria-pressed", on ? "true" : "false");
    button.textContent = on ? "Done: let the page scroll" : "Interact with the plot";
  }

  /* "Copy link": the address bar's link, which holds what the page shows. */
  function copyLink(button) {
    var note = button.parentNode.querySelector(".copy-note");
    var said = function (text) { if (note) { note.textContent = text; } };
    if (!navigator.clipboard) { said(window.location.href); return; }
    navigator.clipboard.writeText(window.location.href).then(
      function () { said("Copied."); },
      function () { said(window.location.href); }
    );
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) { return; }
    closeMenus(target.closest("details.nav-maps"));
    var button = target.closest(".interact-button");
    if (button) { interact(button); }
    var copy = target.closest(".copy-link");
    if (copy) { copyLink(copy); }
    builderClick(target);
  });

  /* The sheet of controls opened on a phone: the plot at the top of the screen is brought
   * whole into the part the sheet leaves (its title just under the screen's top), so that a
   * control moved in the sheet changes a plot in sight. */
  function keepPlotInSight(panel) {
    if (!panel.open || !window.matchMedia("(max-width: 900px)").matches) { return; }
    var cards = document.querySelectorAll(".graph-card");
    for (var k = 0; k < cards.length; k++) {
      var box = cards[k].getBoundingClientRect();
      if (box.bottom > 40) {
        window.scrollBy({top: box.top - 8, behavior: "instant"});
        return;
      }
    }
  }
  document.addEventListener("toggle", function (event) {
    var target = event.target;
    if (target && target.classList && target.classList.contains("sidebar-panel")) {
      keepPlotInSight(target);
    }
  }, true);

  /* The bar scrolls sideways on a phone: the page shown is brought into it. */
  function showCurrentLink(root) {
    var current = root.querySelector(".nav .nav-link.active:not([data-shown])");
    if (!current) { return; }
    current.setAttribute("data-shown", "1");
    var nav = current.closest(".nav");
    if (nav && nav.scrollWidth > nav.clientWidth) {
      var offset = current.getBoundingClientRect().left - nav.getBoundingClientRect().left;
      nav.scrollLeft += offset - (nav.clientWidth - current.offsetWidth) / 2;
    }
  }

  var naming = false;
  new MutationObserver(function () {
    if (naming) { return; }
    naming = true;
    window.requestAnimationFrame(function () {
      naming = false;
      nameControls(document);
      applyTheme();
      foldOnPhones(document);
      outOfTabOrder(document);
      showCurrentLink(document);
      Object.keys(gates).forEach(function (key) { watch(gates[key]); });  // new plots
      obeyWaiting();
    });
  }).observe(document.documentElement, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow", "tabindex"]
  });

  /* ---- embedded in a course page: the frame's height, and a page-to-figure API ------------- */

  /* A view in an iframe (docs/embedding.md) tells its parent the height it needs, whenever it
   * changes, so that the parent's /embed.js can size the frame to its content: no scrollbar in
   * the frame. The height is no secret and any page may embed the app unless FRAME_ANCESTORS
   * says otherwise, so it goes to any parent ("*").
   *
   * The parent may drive the figure with messages ({type: "lazy-rich:set", values: {delta: -2}},
   * "lazy-rich:play", "lazy-rich:pause", "lazy-rich:hello") and hears what it shows
   * ("lazy-rich:state"). Only messages of the window that embeds the frame, from an origin the
   * server allows (the <meta name="lazy-rich-message-origins"> of the page: the app itself and
   * the FRAME_ANCESTORS origins), are read; anything else is ignored and said so on the
   * console. State goes only to such an origin. */
  var PREFIX = "lazy-rich:";
  var embedded = window.parent !== window;
  var parentOrigin = null;  // an allowed origin that the parent has been seen to have
  var lastHeight = 0;

  function reportHeight() {
    var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (!embedded || !height || Math.abs(height - lastHeight) < 1) { return; }
    lastHeight = height;
    window.parent.postMessage({type: PREFIX + "height", height: height}, "*");
  }

  /* The origins the server allows to drive the figure: CSP sources ('self', https://a.edu,
   * https://*.b.edu, https://a.edu:8443, https:, *) as FRAME_ANCESTORS writes them. */
  function allowedSources() {
    var meta = document.querySelector("meta[name='lazy-rich-message-origins']");
    return meta ? meta.getAttribute("content").split(/\s+/).filter(Boolean) : ["'self'"];
  }

  var DEFAULT_PORTS = {"http:": "80", "https:": "443"};

  function sourceAllows(source, origin) {
    if (source === "'self'") { return origin === window.location.origin; }
    var url;
    try { url = new URL(origin); } catch (error) { return false; }
    if (source === "*") { return url.protocol === "http:" || url.protocol === "https:"; }
    if (/^[a-z][a-z0-9+.-]*:$/i.test(source)) { return url.protocol === source.toLowerCase(); }
    var parts = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*\.)?([^:/]+)(?::(\d+|\*))?\/?$/i.exec(source);
    if (!parts) { return false; }
    var scheme = parts[1] ? parts[1].toLowerCase() + ":" : window.location.protocol;
    var schemeOk = url.protocol === scheme || (scheme === "http:" && url.protocol === "https:");
    var host = parts[3].toLowerCase();
    var hostOk = parts[2] ? url.hostname.endsWith("." + host) : url.hostname === host;
    var port = url.port || DEFAULT_PORTS[url.protocol] || "";
    var portOk = parts[4] === "*" || port === (parts[4] || DEFAULT_PORTS[url.protocol] || "");
    return schemeOk && hostOk && portOk;
  }

  function allowed(origin) {
    return allowedSources().some(function (source) { return sourceAllows(source, origin); });
  }

  /* The parent's origin as far as the frame can tell before it writes (Chromium and Safari
   * name it; elsewhere the referrer does), if it is allowed. */
  function guessParent() {
    var ancestors = window.location.ancestorOrigins;
    var guess = ancestors && ancestors.length ? ancestors[0] : null;
    if (!guess && document.referrer) {
      try { guess = new URL(document.referrer).origin; } catch (error) { guess = null; }
    }
    return guess && allowed(guess) ? guess : null;
  }

  function tell(message) {
    var origin = parentOrigin || guessParent();
    if (embedded && origin) { window.parent.postMessage(message, origin); }
  }

  function currentView() {
    var root = document.querySelector(".view[id$='-view']");
    return root ? root.id.slice(0, -"-view".length) : null;
  }

  /* A link's value of one control in its own type (a number, one of its choices, yes/no). */
  function typed(control, text) {
    var field = control ? control.getAttribute("data-field") : null;
    if (field === "float" || field === "int") { return Number(text); }
    if (field === "bool") { return text === "1" || text === "true"; }
    if (field === "choice") {
      var choices = JSON.parse(control.getAttribute("data-choices") || "[]");
      var found = choices.find(function (c) { return String(c) === String(text); });
      return found === undefined ? text : found;
    }
    return text;
  }

  function controlOf(key, name) {
    var root = document.getElementById(key + "-view");
    var controls = root ? root.querySelectorAll(".control[data-control]") : [];
    return Array.prototype.find.call(controls, function (control) {
      return control.getAttribute("data-control") === name;
    }) || null;
  }

  function stateOf(key, search) {
    var params = new URLSearchParams(typeof search === "string" ? search : window.location.search);
    var values = {};
    params.forEach(function (text, name) {
      var control = controlOf(key, name);
      if (control) { values[name] = typed(control, text); }
    });
    var player = players[key];
    var frame = player && player.running ? player.index : Number(params.get("frame") || 0);
    return {type: PREFIX + "state", view: key, values: values, playing: Boolean(player && player.running),
            frame: frame, link: window.location.href};
  }

  /* What the view shows now goes to the parent (after each answer, and when Play starts or
   * stops); the embed's "Open in the explorer" link follows it. */
  function announce(key, search) {
    var full = document.querySelector("#" + key + "-view .open-full");
    if (full && typeof search === "string") { full.setAttribute("href", wholeView(search)); }
    tell(stateOf(key, search));
  }

  var EMBED_FLAGS = ["embed", "controls", "plots", "readonly", "layout", "theme"];

  function wholeView(search) {
    var params = new URLSearchParams(search);
    EMBED_FLAGS.forEach(function (flag) { params.delete(flag); });
    return window.location.pathname + "?" + params.toString();
  }

  /* A value set by the parent, as the control takes it: clamped to its range (and over
   * decades on a log slider), one of its choices, or yes/no. null: not a value it can take. */
  function controlValue(control, value) {
    var field = control.getAttribute("data-field");
    if (field === "float" || field === "int") {
      var number = parseTyped(value);
      if (number === null) { return null; }
      var spec = specOf(control);
      return toControl(spec, clampTyped(spec, String(value), number)[0]);
    }
    if (field === "bool") { return value === true || value === 1 || value === "1" ? ["on"] : []; }
    var choices = JSON.parse(control.getAttribute("data-choices") || "[]");
    var found = choices.find(function (c) { return String(c) === String(value); });
    return found === undefined ? null : found;
  }

  function setValues(key, values, preset) {
    var refused = [];
    if (typeof preset === "string") {
      window.dash_clientside.set_props(key + "-preset", {value: preset});
    }
    Object.keys(values && typeof values === "object" ? values : {}).slice(0, 50).forEach(function (name) {
      var control = controlOf(key, name);
      var value = control ? controlValue(control, values[name]) : null;
      if (value === null) { refused.push(name); return; }
      window.dash_clientside.set_props(key + "-" + name, {value: value});
    });
    if (refused.length) {
      tell({type: PREFIX + "error", view: key,
            message: "not set (no such control, or not a value it takes): " + refused.join(", ")});
    }
  }

  function playing(key, on) {
    var button = document.getElementById(key + "-play");
    var running = Boolean(players[key] && players[key].running);
    if (button && running !== on) { button.click(); }
  }

  /* Messages that come before the view is ready (a lesson's button pressed while its figure
   * loads) wait for its first answer, in order, instead of being lost. */
  var waiting = [];

  function ready(key) { return Boolean(key && gates[key] && gates[key].answered !== null); }

  function obeyWaiting() {
    if (!waiting.length || !ready(currentView())) { return; }
    var due = waiting;
    waiting = [];
    due.forEach(obey);
  }

  function obey(data) {
    var key = currentView();
    if (!ready(key)) {
      if (waiting.length < 20) { waiting.push(data); }
      return;
    }
    if (data.type === PREFIX + "set") { setValues(key, data.values, data.preset); }
    if (data.type === PREFIX + "play") { playing(key, true); }
    if (data.type === PREFIX + "pause") { playing(key, false); }
    if (data.type === PREFIX + "hello" || data.type === PREFIX + "get") { tell(stateOf(key)); }
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || typeof data !== "object" || typeof data.type !== "string" ||
        data.type.indexOf(PREFIX) !== 0) { return; }
    if (data.type === PREFIX + "height") { previewHeight(event); return; }
    var fromParent = embedded && event.source === window.parent;
    // any embedding page may ask for the height again (its script may have come late)
    if (fromParent && data.type === PREFIX + "hello") { lastHeight = 0; reportHeight(); }
    if (!fromParent || !allowed(event.origin)) {
      console.info("lazy-rich: ignored " + data.type + " from " + event.origin +
                   ": only the embedding page, from an allowed origin, may drive the figure");
      return;
    }
    parentOrigin = event.origin;
    obey(data);
  });

  if (embedded) {
    document.documentElement.classList.add("in-frame");
    if (window.ResizeObserver) {
      new ResizeObserver(reportHeight).observe(document.documentElement);
    }
    window.addEventListener("load", reportHeight);
  }

  /* ---- the embed builder (app/ui/embed_builder.py) ------------------------------------------ */

  /* "Embed…" opens a dialog whose choices make an embed's link (the flags of
   * app/core/embedding.py); the preview loads it at the chosen width and reports its height,
   * which the HTML for the course page takes. */
  function builderChoices(dialog) {
    var choices = {};
    dialog.querySelectorAll("[data-flag]").forEach(function (box) {
      var inputs = Array.prototype.slice.call(box.querySelectorAll("input"));
      var on = inputs.filter(function (input) { return input.checked; }).map(function (i) { return i.value; });
      choices[box.getAttribute("data-flag")] = {on: on, all: on.length === inputs.length};
    });
    return choices;
  }

  function embedLink(choices) {
    var params = new URLSearchParams(window.location.search);
    EMBED_FLAGS.forEach(function (flag) { params.delete(flag); });
    params.set("embed", "1");
    var controls = choices.controls, plots = choices.plots;
    if (!controls.all) { params.set("controls", controls.on.join(",") || "none"); }
    if (!plots.all && plots.on.length) { params.set("plots", plots.on.join(",")); }
    if (!controls.all && choices.readonly.on[0] === "1") { params.set("readonly", "1"); }
    if (choices.layout.on[0] !== "full") { params.set("layout", choices.layout.on[0]); }
    if (choices.theme.on[0] !== "auto") { params.set("theme", choices.theme.on[0]); }
    var text = params.toString().replace(/%2C/g, ",");
    return window.location.origin + window.location.pathname + "?" + text;
  }

  function escapeHtml(text) {
    return String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  /* Where the app is served from (a path prefix, if any): Dash's own configuration says. */
  function appBase() {
    var config = document.getElementById("_dash-config");
    var prefix = "/";
    try { prefix = JSON.parse(config.textContent).requests_pathname_prefix || "/"; } catch (error) { /* root */ }
    return window.location.origin + prefix.replace(/\/$/, "");
  }

  function embedTitle(dialog, choices) {
    var title = dialog.getAttribute("data-title") || document.title;
    if (choices.plots.all || !choices.plots.on.length) { return title; }
    var names = choices.plots.on.map(function (graph) {
      var input = dialog.querySelector("[data-flag=plots] input[value='" + graph + "']");
      var label = input ? input.closest("label") : null;
      return label ? label.textContent.trim() : graph;
    });
    return title + " — " + names.join(", ");
  }

  function writeSnippet(dialog) {
    var choices = builderChoices(dialog);
    var link = embedLink(choices);
    var height = dialog.lazyRichHeight;
    var html = '<iframe src="' + escapeHtml(link) + '"\n        title="' +
      escapeHtml(embedTitle(dialog, choices)) + '"\n        width="100%" height="' +
      (height || 600) + '" style="border:0" loading="lazy"></iframe>\n' +
      '<script src="' + escapeHtml(appBase() + "/embed.js") + '" async></' + 'script>';
    dialog.querySelector(".builder-link").value = link;
    dialog.querySelector(".builder-html").value = html;
    var width = Number(choices.width.on[0]) || 720;
    dialog.querySelector(".builder-note").textContent = height
      ? "The preview is " + width + " px wide and needs " + height + " px of height: the HTML asks for that. " +
        "With the script, the frame follows its content at any width."
      : "Measuring the height in the preview…";
    return {link: link, width: width};
  }

  function loadPreview(dialog) {
    var wanted = writeSnippet(dialog);
    var frame = dialog.querySelector(".builder-frame");
    var box = dialog.querySelector(".builder-preview");
    var scale = Math.min(1, (box.clientWidth || wanted.width) / wanted.width);
    frame.style.width = wanted.width + "px";
    frame.style.transform = scale < 1 ? "scale(" + scale + ")" : "";
    dialog.lazyRichScale = scale;
    if (frame.getAttribute("src") !== wanted.link) {
      dialog.lazyRichHeight = 0;
      writeSnippet(dialog);
      frame.setAttribute("src", wanted.link);
    }
  }

  /* A height reported by a builder's preview (any other frame's is /embed.js's business). */
  function previewHeight(event) {
    if (event.origin !== window.location.origin) { return; }
    document.querySelectorAll("dialog.embed-builder").forEach(function (dialog) {
      var frame = dialog.querySelector(".builder-frame");
      if (!frame || frame.contentWindow !== event.source) { return; }
      var height = Math.max(50, Math.min(20000, Math.round(Number(event.data.height) || 0)));
      frame.style.height = height + "px";
      frame.parentNode.style.height = Math.ceil(height * (dialog.lazyRichScale || 1)) + "px";
      dialog.lazyRichHeight = height;
      writeSnippet(dialog);
    });
  }

  var previewTimer = 0;
  document.addEventListener("change", function (event) {
    var dialog = event.target instanceof Element ? event.target.closest("dialog.embed-builder") : null;
    if (!dialog) { return; }
    clearTimeout(previewTimer);
    previewTimer = setTimeout(function () { loadPreview(dialog); }, 250);
  });

  function copyText(text, note) {
    var said = function (words) { if (note) { note.textContent = words; } };
    if (!navigator.clipboard) { said("Select the text and copy it."); return; }
    navigator.clipboard.writeText(text).then(function () { said("Copied."); },
                                             function () { said("Select the text and copy it."); });
  }

  function builderClick(target) {
    var opener = target.closest(".open-builder");
    if (opener) {
      var dialog = document.getElementById(opener.getAttribute("data-builder"));
      if (dialog && !dialog.open) { dialog.showModal(); loadPreview(dialog); }
      return;
    }
    var inside = target.closest("dialog.embed-builder");
    if (!inside) { return; }
    if (target.closest("[data-close]")) { inside.close(); }
    var all = target.closest("[data-all]");
    if (all) {  // tick or untick every box of the question (each click goes through Dash)
      var on = all.getAttribute("data-all") === "1";
      all.closest("[data-flag]").querySelectorAll("input").forEach(function (input) {
        if (input.checked !== on) { input.click(); }
      });
    }
    var copy = target.closest("[data-copy]");
    if (copy) {
      var field = inside.querySelector(copy.getAttribute("data-copy") === "html" ? ".builder-html" : ".builder-link");
      copyText(field.value, inside.querySelector(".builder-note"));
    }
  }

  /* ---- a 3-D scene draws after the flat plots of the same answer -------------------------- */

  /* Dash draws every plot of an answer in one task, and the browser paints none of them until
   * that task ends. Without a GPU a 3-D scene takes ~0.6 s to draw (the rendering itself, in
   * software), and the flat plots of the same answer waited for it. A scene's drawing is moved
   * to the first task after the next frame: the flat plots paint first, the scene when it is
   * ready, as soon as before. A newer figure for a scene still waiting replaces the older one
   * (the newest wins, as everywhere on the page). dcc.Graph draws through the page's Plotly
   * object, and awaits the promise it gets. */
  var SCENE_TRACES = ["surface", "scatter3d", "mesh3d", "cone", "streamtube", "isosurface", "volume"];

  function figureData(figure) {
    if (Array.isArray(figure)) { return figure; }
    return figure && Array.isArray(figure.data) ? figure.data : [];
  }

  function drawsScene(figure) {
    return figureData(figure).some(function (trace) {
      return trace && SCENE_TRACES.indexOf(trace.type) !== -1;
    });
  }

  function deferScenes() {
    var Plotly = window.Plotly;
    if (!Plotly || Plotly.lazyRichScenesDeferred) { return; }
    Plotly.lazyRichScenesDeferred = true;
    var react = Plotly.react;
    var waiting = new WeakMap();  // graph div → {args, promise}
    Plotly.react = function (gd) {
      var args = Array.prototype.slice.call(arguments);
      if (!gd || !gd.closest || !gd.closest(".dash-graph") || !drawsScene(args[1])) {
        return react.apply(Plotly, args);
      }
      var entry = waiting.get(gd);
      if (entry) { entry.args = args; return entry.promise; }
      entry = {args: args};
      entry.promise = new Promise(function (resolve, reject) {
        window.requestAnimationFrame(function () {
          setTimeout(function () {
            waiting.delete(gd);
            if (!gd.isConnected) { resolve(gd); return; }  // the page moved on meanwhile
            Promise.resolve().then(function () { return react.apply(Plotly, entry.args); })
              .then(resolve, reject);
          }, 0);
        });
      });
      waiting.set(gd, entry);
      return entry.promise;
    };
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", deferScenes);
  } else {
    deferScenes();
  }

  /* ---- resending a callback whose answer did not arrive whole ------------------------------ */

  /* A worker that dies mid-request (a crash, a restart by the server) breaks that request's
   * connection — before the answer or halfway through it — and Dash would leave the plots
   * stale. Callbacks are pure functions of their inputs, so resending is safe: a callback
   * request whose answer does not arrive whole, or that gets a 502/503/504 from a proxy, is
   * sent again — twice at most, after a short pause. One refused as too many (429: the page
   * outran its rate, app/fair.py) is sent again after the pause its Retry-After names. */
  var plainFetch = window.fetch.bind(window);
  var RETRIES = 2;
  var REFUSALS = 10;  // a page over its rate waits its turn, up to ten pauses
  function pause(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }
  function retryAfterMs(response) {
    var seconds = parseFloat(response.headers.get("Retry-After"));
    return isFinite(seconds) && seconds >= 0 ? Math.min(seconds, 10) * 1000 : 1000;
  }
  window.fetch = function (resource, init) {
    if (typeof resource !== "string" || resource.indexOf("_dash-update-component") === -1) {
      return plainFetch(resource, init);
    }
    var attempt = 0, refusals = 0;
    function send() {
      return plainFetch(resource, init).then(function (response) {
        if ([502, 503, 504].indexOf(response.status) !== -1 && attempt < RETRIES) {
          return retry();
        }
        if (response.status === 429 && refusals < REFUSALS) {  // (not a failure: wait and resend)
          refusals += 1;
          return pause(retryAfterMs(response)).then(send);
        }
        // read the whole body here, so that a connection lost halfway is retried too
        return response.text().then(function (body) {
          if (response.ok) { readAnswers(body); }
          return new Response(body, {
            status: response.status, statusText: response.statusText, headers: response.headers
          });
        });
      }).catch(function (error) {
        if ((error && error.name === "AbortError") || attempt >= RETRIES) { throw error; }
        return retry();
      });
    }
    function retry() {
      attempt += 1;
      return pause(250 * attempt).then(send);
    }
    return send();
  };
})();
