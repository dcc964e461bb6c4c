/* Lazy vs rich explorer: the script of a course page that embeds its views (docs/embedding.md).
 *
 *   <iframe src="https://APP/single-neuron?embed=1&…" title="…" width="100%" height="600"
 *           style="border:0" loading="lazy"></iframe>
 *   <script src="https://APP/embed.js" async></script>
 *
 * 1. Every frame of the app takes the height its page reports ("lazy-rich:height"): no
 *    scrollbar inside the frame, at any width. A page that is itself embedded (a lesson in an
 *    LMS page) reports its own height the same way.
 * 2. LazyRich.set(frame, {delta: -2}), .preset(frame, slug), .play(frame), .pause(frame) and
 *    .on(frame, fn) drive a frame and hear what it shows; `frame` is an iframe or its id.
 * 3. Without writing any script: <button data-lazy-rich-set='{"delta": -2}'
 *    data-lazy-rich-frame="fig1">, data-lazy-rich-play, data-lazy-rich-pause; a <details> with
 *    data-lazy-rich-set sets the values when it opens ("predict, then look"); an element with
 *    data-lazy-rich-show="delta" shows the frame's value of δ.
 * No dependency; messages go to, and are read from, the app's origin only.
 */
(function () {
  "use strict";
  var PREFIX = "lazy-rich:";
  var here = document.currentScript && document.currentScript.src;
  var APP = new URL(here || window.location.href, window.location.href).origin;

  function frameOf(source) {
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === source) { return frames[i]; }
    }
    return null;
  }

  function resolve(frame) {  // an iframe, its id, or (none given) the page's first of the app
    if (typeof frame === "string") { return document.getElementById(frame); }
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; !frame && i < frames.length; i++) {
      if (frames[i].src.indexOf(APP + "/") === 0) { frame = frames[i]; }
    }
    return frame;
  }

  function post(frame, message) {
    var target = resolve(frame);
    if (target && target.contentWindow) { target.contentWindow.postMessage(message, APP); }
  }

  function show(frame, state) {
    var shown = document.querySelectorAll("[data-lazy-rich-show][data-lazy-rich-frame='" + frame.id + "']");
    for (var i = 0; i < shown.length; i++) {
      var value = state.values[shown[i].getAttribute("data-lazy-rich-show")];
      var number = typeof value === "number" ? Number(value.toPrecision(4)) : value;
      if (value !== undefined) { shown[i].textContent = String(number).replace("-", "−"); }
    }
  }

  window.addEventListener("message", function (event) {
    var data = event.data, frame = frameOf(event.source);
    if (event.origin !== APP || !frame || !data || typeof data.type !== "string") { return; }
    if (data.type === PREFIX + "height") {  // the content's height, and the frame's borders
      var content = Math.max(50, Math.min(20000, Math.ceil(Number(data.height) || 0)));
      var box = frame.getBoundingClientRect().height - frame.clientHeight;
      frame.style.height = content + (getComputedStyle(frame).boxSizing === "border-box" ? box : 0) + "px";
    } else if (data.type === PREFIX + "state" || data.type === PREFIX + "error") {
      if (data.type === PREFIX + "state" && data.values) { show(frame, data); }
      frame.dispatchEvent(new CustomEvent(data.type, {detail: data}));
    }
  });

  function hello(frame) { post(frame, {type: PREFIX + "hello"}); }
  document.addEventListener("load", function (event) {
    if (event.target.tagName === "IFRAME") { hello(event.target); }
  }, true);
  function loaded(frame) {  // a frame of the app that had loaded before this script ran
    var blank = true;
    try { blank = frame.contentDocument.location.href === "about:blank"; } catch (e) { blank = false; }
    return frame.src.indexOf(APP + "/") === 0 && !blank;
  }
  Array.prototype.forEach.call(document.getElementsByTagName("iframe"), function (frame) {
    if (loaded(frame)) { hello(frame); }
  });

  window.LazyRich = {
    set: function (frame, values) { post(frame, {type: PREFIX + "set", values: values}); },
    preset: function (frame, slug) { post(frame, {type: PREFIX + "set", preset: slug}); },
    play: function (frame) { post(frame, {type: PREFIX + "play"}); },
    pause: function (frame) { post(frame, {type: PREFIX + "pause"}); },
    on: function (frame, listener) {
      resolve(frame).addEventListener(PREFIX + "state", function (e) { listener(e.detail); });
    }
  };

  function act(node) {
    var frame = node.getAttribute("data-lazy-rich-frame");
    if (node.hasAttribute("data-lazy-rich-set")) {
      LazyRich.set(frame, JSON.parse(node.getAttribute("data-lazy-rich-set")));
    }
    if (node.hasAttribute("data-lazy-rich-play")) { LazyRich.play(frame); }
    if (node.hasAttribute("data-lazy-rich-pause")) { LazyRich.pause(frame); }
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-lazy-rich-frame]");
    if (button) { act(button); }
  });
  document.addEventListener("toggle", function (event) {
    var prompt = event.target;
    if (prompt.tagName === "DETAILS" && prompt.open && prompt.hasAttribute("data-lazy-rich-frame")) { act(prompt); }
  }, true);

  if (window.parent !== window && window.ResizeObserver) {  // this page in a frame of its own
    var reported = 0;
    var report = function () {
      var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height !== reported) {
        reported = height;
        window.parent.postMessage({type: PREFIX + "height", height: height}, "*");
      }
    };
    new ResizeObserver(report).observe(document.documentElement);
    window.addEventListener("message", function (event) {  // the parent's script came late
      var data = event.data;
      if (event.source === window.parent && data && data.type === PREFIX + "hello") {
        reported = 0;
        report();
      }
    });
  }
})();
