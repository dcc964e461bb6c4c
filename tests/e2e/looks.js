/* What a reader would find wrong with the plots on the page, as a list of
 * {plot, kind, detail} (tests/e2e/test_looks.py). Evaluated in the page: `theme` is the page's
 * ("light" or "dark").
 *
 * Read from what the browser drew (the boxes of the SVG texts, the plot areas plotly laid out,
 * the pixels of the heatmaps), not from the figures the server sent. */
async (theme) => {
  const problems = [];
  const RAW = [
    [/[A-Za-zα-ωΑ-Ω]_[A-Za-zα-ωΑ-Ω0-9{]/, "an underscore for a subscript"],
    [/\^/, "a caret for a power"],
    [/(^|[^\w.])\d+(\.\d+)?e[+\-−]?\d+(?![\w])/, "a number in e-notation"],
  ];
  const rect = (el) => el.getBoundingClientRect();
  const overlap = (a, b) => [
    Math.min(a.right, b.right) - Math.max(a.left, b.left),
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top),
  ];
  const clip = (text) => (text.length > 40 ? text.slice(0, 39) + "…" : text);
  const luminance = (rgb) => (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255;

  function rgbOf(colour) {
    const probe = document.createElement("span");
    probe.style.color = colour;
    document.body.appendChild(probe);
    const parts = getComputedStyle(probe).color.match(/[\d.]+/g) || ["0", "0", "0"];
    probe.remove();
    return parts.slice(0, 3).map(Number);
  }

  function nameOf(gd) {
    const card = gd.closest(".graph-card, .paper-card");
    const title = card && card.querySelector("h3");
    const where = title ? title.textContent.trim() : gd.parentElement.id || "a plot";
    return clip(where);
  }

  function visible(el) {
    for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.display === "none" || style.visibility === "hidden" || Number(style.opacity) === 0) {
        return false;
      }
    }
    return true;
  }

  function kindOf(text) {
    if (text.closest(".legend")) { return "legend"; }
    if (text.closest(".annotation")) { return "label"; }
    if (text.closest(".colorbar")) { return "colour bar"; }
    if (text.closest(".textpoint")) { return "point label"; }
    const group = text.parentElement.getAttribute("class") || "";
    if (/tick$/.test(group)) { return group.replace(/tick$/, "") + " tick"; }
    const title = text.closest("[class^='g-'][class$='title']");
    if (title) { return title.getAttribute("class").slice(2).replace("title", " title"); }
    return "text";
  }

  function textsOf(gd) {
    const found = [];
    gd.querySelectorAll("svg.main-svg text").forEach((el) => {
      if (el.closest(".hoverlayer, .table, .trace.table")) { return; }
      const text = el.textContent.trim();
      // a label's box (its background) is what collides with another label
      const owner = el.closest(".annotation-text-g") || el;
      const box = rect(owner);
      if (!text || box.width === 0 || box.height === 0 || !visible(el)) { return; }
      found.push({ el, text, box, kind: kindOf(el) });
    });
    return found;
  }

  /* The data areas: every cartesian subplot with a visible axis, and every 3-D scene. */
  function areasOf(gd, frame) {
    const layout = gd._fullLayout;
    const areas = [];
    Object.values(layout._plots || {}).forEach((plot) => {
      const x = plot.xaxis, y = plot.yaxis;
      if (!x || !y || (x.visible === false && y.visible === false)) { return; }
      areas.push({
        left: frame.left + x._offset, right: frame.left + x._offset + x._length,
        top: frame.top + y._offset, bottom: frame.top + y._offset + y._length,
        constrained: Boolean(x.scaleanchor || y.scaleanchor),
      });
    });
    (layout._subplots.gl3d || []).forEach((name) => {
      const domain = layout[name].domain, size = layout._size;
      areas.push({
        left: frame.left + size.l + domain.x[0] * size.w,
        right: frame.left + size.l + domain.x[1] * size.w,
        top: frame.top + size.t + (1 - domain.y[1]) * size.h,
        bottom: frame.top + size.t + (1 - domain.y[0]) * size.h,
        constrained: true,
      });
    });
    return areas;
  }

  /* A tick label's number: "0.5", "−2", "100", "10⁻³", "10<sup>−3</sup>", "2×10⁴"; null if
   * it is not a number. */
  function tickValue(text) {
    const digits = "⁰¹²³⁴⁵⁶⁷⁸⁹";
    const plain = text.replace(/<sup>(.*?)<\/sup>/g, "^$1").replace(/<[^>]+>/g, "")
      .replace(/[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (run) => "^" + run.replace("⁻", "-").replace("⁺", "")
        .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]/g, (c) => String(digits.indexOf(c))))
      .replace(/[−–]/g, "-").replace(/\u200b/g, "").trim();
    let match = plain.match(/^(-?[\d.]+)\s*[×x·]\s*10\^(-?\d+)$/);
    if (match) { return Number(match[1]) * Math.pow(10, Number(match[2])); }
    match = plain.match(/^10\^(-?\d+)$/);
    if (match) { return Math.pow(10, Number(match[1])); }
    return /^-?[\d.]+(e[+-]?\d+)?$/.test(plain) ? Number(plain) : null;
  }

  function lyingTicks(gd, add) {
    const layout = gd._fullLayout;
    Object.keys(layout).filter((k) => /^[xy]axis\d*$/.test(k)).forEach((key) => {
      const axis = layout[key];
      if (axis.type !== "log" || axis.visible === false || !axis.showticklabels) { return; }
      (axis._vals || []).forEach((tick) => {
        const shown = tickValue(String(tick.text || ""));
        if (shown === null || shown <= 0) { return; }
        if (Math.abs(Math.log10(shown) - tick.x) > 0.01) {
          add("tick label", `"${tick.text}" labels ${Number(Math.pow(10, tick.x).toPrecision(3))} on ${key}`);
        }
      });
    });
  }

  function finiteCount(values) {
    let count = 0;
    (function walk(v) {
      if (v === null || v === undefined) { return; }
      if (typeof v === "number") { if (Number.isFinite(v)) { count += 1; } return; }
      if (typeof v === "string") { if (v !== "" && Number.isFinite(Number(v))) { count += 1; } return; }
      if (typeof v.length === "number") { for (let i = 0; i < v.length && count < 2; i++) { walk(v[i]); } }
    })(values);
    return count;
  }

  /* A heatmap whose cells all have one colour shows nothing. */
  function flat(trace) {
    let low = Infinity, high = -Infinity;
    const z = trace.z || [];
    for (let i = 0; i < z.length; i++) {
      const row = z[i];
      for (let j = 0; j < (row ? row.length : 0); j++) {
        const v = row[j];
        if (Number.isFinite(v)) { low = Math.min(low, v); high = Math.max(high, v); }
      }
    }
    if (!(high >= low)) { return true; }
    const zmin = Number.isFinite(trace.zmin) ? trace.zmin : low;
    const zmax = Number.isFinite(trace.zmax) ? trace.zmax : high;
    return high - low <= 0.01 * Math.max(zmax - zmin, 1e-300);
  }

  /* A plot without data is a fault unless the panel does not apply to the setting: then it
   * says what it needs (meta.unavailable) and its card is folded to that note. */
  function withoutData(gd, add) {
    const unavailable = gd.layout && gd.layout.meta && gd.layout.meta.unavailable;
    if (unavailable) {
      if (rect(gd).height > 90) { add("no data", `an empty plot ${Math.round(rect(gd).height)} px tall for a note: "${clip(String(unavailable))}"`); }
      return;
    }
    const shown = gd._fullData.filter((t) => t.visible === true && t.opacity !== 0);
    const bearing = shown.filter((t) => {
      if (t.type === "table") { return finiteCount(t.cells.values) > 0 || t.cells.values.length > 0; }
      if (t.type === "heatmap" || t.type === "surface" || t.type === "contour") {
        return finiteCount(t.z) > 0;
      }
      const cd = (gd.calcdata || []).find((c) => c[0] && c[0].trace && c[0].trace.index === t.index);
      return Boolean(cd && cd.some((p) => Number.isFinite(p.x) && Number.isFinite(p.y)))
        || (t.type === "scatter3d" && finiteCount(t.z) > 0);
    });
    if (bearing.length === 0) {
      add("no data", "nothing is drawn");
    } else if (bearing.every((t) => t.type === "heatmap" && flat(t))) {
      add("no data", "one colour over the whole plot");
    }
  }

  async function whitePixels(image) {
    const source = image.getAttribute("href") || image.getAttribute("xlink:href");
    if (!source) { return 0; }
    const picture = new Image();
    picture.src = source;
    try { await picture.decode(); } catch (error) { return 0; }
    const canvas = document.createElement("canvas");
    canvas.width = picture.naturalWidth; canvas.height = picture.naturalHeight;
    const context = canvas.getContext("2d");
    context.drawImage(picture, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    let white = 0, opaque = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if (pixels[i + 3] < 128) { continue; }
      opaque += 1;
      if (Math.min(pixels[i], pixels[i + 1], pixels[i + 2]) > 200) { white += 1; }
    }
    return opaque ? white / opaque : 0;
  }

  async function whiteInTheDark(gd, add) {
    const layout = gd._fullLayout;
    const backgrounds = [["paper", layout.paper_bgcolor], ["plot area", layout.plot_bgcolor]];
    (layout._subplots.gl3d || []).forEach((name) => backgrounds.push([name, layout[name].bgcolor]));
    backgrounds.forEach(([where, colour]) => {
      if (colour && luminance(rgbOf(colour)) > 0.5) { add("white in the dark", `${where} ${colour}`); }
    });
    for (const image of gd.querySelectorAll(".heatmaplayer image, .hm image")) {
      const share = await whitePixels(image);
      if (share > 0.3) { add("white in the dark", `a heatmap ${Math.round(100 * share)} % near-white`); }
    }
    gd._fullData.filter((t) => t.type === "table" && t.visible === true).forEach((table) => {
      const fills = [].concat(...[].concat(table.cells.fill.color).map((c) => [].concat(c)));
      const light = fills.filter((c) => typeof c === "string" && Math.min(...rgbOf(c)) > 200);
      if (fills.length && light.length > 0.3 * fills.length) {
        add("white in the dark", `a table ${Math.round((100 * light.length) / fills.length)} % light cells`);
      }
    });
  }

  function rawNotation(where, text, add) {
    RAW.forEach(([pattern, what]) => {
      const found = text.match(pattern);
      if (found) {
        const at = Math.max(0, found.index - 12);
        add("raw notation", `${what} in ${where}: "${clip(text.slice(at, at + 30).trim())}"`);
      }
    });
  }

  /* ---- a plot never drawn (its card still waiting) is not looked at below: say so ---- */
  document.querySelectorAll(".dash-graph, .paper-card-placeholder").forEach((slot) => {
    if (!visible(slot)) { return; }
    const gd = slot.classList.contains("js-plotly-plot") ? slot : slot.querySelector(".js-plotly-plot");
    if (gd && gd._fullLayout) { return; }
    const card = slot.closest(".graph-card, .paper-card");
    const title = card && card.querySelector("h3");
    problems.push({ plot: clip(title ? title.textContent.trim() : slot.id || "a plot"),
      kind: "no data", detail: "the plot was never drawn" });
  });

  /* ---- every plot ---- */
  for (const gd of document.querySelectorAll(".js-plotly-plot")) {
    if (!gd._fullLayout || !visible(gd) || rect(gd).width === 0) { continue; }
    const plot = nameOf(gd);
    const seen = new Set();
    const add = (kind, detail) => {
      const key = kind + detail;
      if (!seen.has(key)) { seen.add(key); problems.push({ plot, kind, detail }); }
    };
    const container = gd.querySelector(".svg-container");
    const frame = rect(container);
    const texts = textsOf(gd);
    // text on text
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i], b = texts[j];
        if (a.kind === "legend" && b.kind === "legend") { continue; }
        const [w, h] = overlap(a.box, b.box);
        if (w > 1.5 && h > 1.5) {
          add("overlap", `"${clip(a.text)}" (${a.kind}) and "${clip(b.text)}" (${b.kind})`);
        }
      }
    }
    // text cut off at the plot's edge
    texts.forEach((t) => {
      const b = t.box;
      if (b.left < frame.left - 1 || b.right > frame.right + 1 || b.top < frame.top - 1
          || b.bottom > frame.bottom + 1) {
        add("clipped", `"${clip(t.text)}" (${t.kind}) runs off the plot`);
      }
    });
    // legend and colour bar boxes over the data
    const areas = areasOf(gd, frame);
    const boxes = [];
    gd.querySelectorAll(".legend > .bg, .legend .bg").forEach((bg) => boxes.push(["legend", bg]));
    gd.querySelectorAll(".colorbar .cbbg").forEach((bg) => boxes.push(["colour bar", bg]));
    boxes.forEach(([what, el]) => {
      if (!visible(el)) { return; }
      const b = rect(el);
      if (b.width < 2 || b.height < 2) { return; }
      areas.forEach((area) => {
        const [w, h] = overlap(b, area);
        if (w > 4 && h > 4) { add("over the data", `the ${what} covers ${Math.round(w)} × ${Math.round(h)} px of the data`); }
      });
    });
    // the data squeezed into a corner of the figure
    areas.forEach((area) => {
      const wide = (area.right - area.left) / frame.width;
      const tall = (area.bottom - area.top) / frame.height;
      if (wide < 0.55 && !(area.constrained && tall >= 0.55)) {
        add("squeezed", `the data use ${Math.round(100 * wide)} % of the plot's width`);
      }
    });
    // a card narrower than its plot hides part of it (tables scroll on purpose)
    const card = gd.closest(".graph-card, .paper-card");
    if (card && !gd.closest(".table-scroll")) {
      const c = rect(card);
      if (frame.right > c.right + 1 || frame.left < c.left - 1) { add("clipped", "the plot is wider than its card"); }
    }
    lyingTicks(gd, add);
    withoutData(gd, add);
    if (theme === "dark") { await whiteInTheDark(gd, add); }
    texts.forEach((t) => rawNotation(`the plot (${t.kind})`, t.text, add));
    gd._fullData.filter((t) => t.type === "table").forEach((table) => {
      [].concat(table.header.values, table.cells.values).flat(2).forEach((v) => {
        if (typeof v === "string") { rawNotation("a table", v.replace(/<[^>]+>/g, ""), add); }
      });
    });
  }

  /* ---- the page's own text: summaries, slider marks, labels, messages ---- */
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const pageProblems = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, math, svg, code, pre, .js-plotly-plot")) { continue; }
    const text = node.textContent.trim();
    if (!text || !visible(parent)) { continue; }
    const area = parent.closest(".paper-card") ? "a paper card's text"
      : parent.closest(".facts") ? "the summary"
      : parent.closest(".rc-slider-mark, .rc-slider") ? "a slider mark"
        : parent.closest("label, .control") ? "a control"
          : parent.closest(".message, .messages") ? "a message" : "the page";
    RAW.forEach(([pattern, what]) => {
      const found = text.match(pattern);
      if (found) {
        const at = Math.max(0, found.index - 12);
        const detail = `${what} in ${area}: "${clip(text.slice(at, at + 30).trim())}"`;
        if (!pageProblems.has(detail)) {
          pageProblems.add(detail);
          problems.push({ plot: "(page)", kind: "raw notation", detail });
        }
      }
    });
  }
  return problems;
}
