/* The paper-figures page: each card's figure is drawn when the card comes into view.
 *
 * Each group's cards come as data (data-cards on div.paper-cards, app/paper_figures.py
 * card_entry) and are built here as plain DOM: some seventy cards rendered by Dash as
 * components took the page seconds. A card (article.paper-card) names where its content is
 * served (data-card-source): the figure, the evidence for its claim and, if it could not be
 * computed, why. The content is computed once per deployment on the server; here it is fetched
 * when the card is within a screen of the viewport and drawn by plotly into the card's slot:
 * the first at once, the next ones one per animation frame, so that the first card shows
 * while later ones (3-D scenes render in software without a GPU) are still being drawn. The
 * figures follow the system's colour scheme, as the views' plots do. */
(function () {
  "use strict";

  var MARGIN = "400px 0px";
  var observer = null;

  function theme() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches
      ? "dark" : "light";
  }

  /* a text typeset on the server (app/ui/notation.py): plain text with <i>, <sub> and <sup>
   * only, built as elements — everything else stays text, so nothing is parsed as HTML */
  var MARKUP = /(<\/?(?:i|sub|sup)>)/;

  function typeset(node, text) {
    var stack = [node];
    String(text).split(MARKUP).forEach(function (piece) {
      if (!piece) { return; }
      var top = stack[stack.length - 1];
      if (/^<\/(i|sub|sup)>$/.test(piece)) {
        if (stack.length > 1) { stack.pop(); }
      } else if (/^<(i|sub|sup)>$/.test(piece)) {
        stack.push(top.appendChild(document.createElement(piece.slice(1, -1))));
      } else {
        top.appendChild(document.createTextNode(piece));
      }
    });
    return node;
  }

  function element(tag, className, text, attributes) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text) { typeset(node, text); }
    Object.keys(attributes || {}).forEach(function (name) {
      node.setAttribute(name, attributes[name]);
    });
    return node;
  }

  function labelled(tag, className, label, text) {
    var node = element(tag, className);
    node.appendChild(element("strong", "", label));
    typeset(node, text);
    return node;
  }

  /* a link inside the app, followed as Dash's own links are: without reloading the page
   * (tests/unit/test_browser_contract.py checks the event against the installed Dash) */
  function appLink(entry) {
    var link = element("a", "card-link", "Open in the interactive view →");
    link.href = entry.href;
    link.title = entry.link_title;
    link.addEventListener("click", function (event) {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
        return;  // a new tab or window: the browser's own
      }
      event.preventDefault();
      window.history.pushState({}, "", entry.href);
      window.dispatchEvent(new CustomEvent("_dashprivate_pushstate"));
      window.scrollTo(0, 0);
    });
    return link;
  }

  function buildCard(entry) {
    var card = element("article", "paper-card");
    card.id = entry.id;
    card.dataset.cardSource = entry.source;
    card.dataset.cardSlot = entry.slot;
    card.dataset.cardGraph = entry.graph;
    card.dataset.cardNote = entry.note;
    card.dataset.cardEvidence = entry.evidence;
    card.appendChild(element("h3", "paper-card-title", entry.title));
    card.appendChild(element("p", "paper-card-caption", entry.caption));
    var slot = element("div", "paper-card-plot", "",
      {id: entry.slot, role: "img", "aria-label": entry.label});
    slot.style.minHeight = entry.height + "px";
    slot.appendChild(element("div", "paper-card-placeholder", "Drawing the figure…"));
    card.appendChild(slot);
    card.appendChild(element("div", "paper-card-note", "", {id: entry.note, role: "status"}));
    if (entry.claim) {
      card.appendChild(labelled("p", "paper-card-claim", "What it shows: ", entry.claim));
      card.appendChild(element("p", "paper-card-evidence", "",
        {id: entry.evidence, "aria-live": "polite"}));
    }
    if (entry.differs) {
      card.appendChild(labelled("p", "paper-card-differs", "Differs from the paper: ", entry.differs));
    }
    if (entry.seeds) {
      card.appendChild(labelled("p", "paper-card-differs", "Across seeds: ", entry.seeds));
    }
    card.appendChild(element("p", "paper-card-panel", entry.panel));
    card.appendChild(appLink(entry));
    return card;
  }

  /* The first cards are built first and the others once the first figure is drawn (or after
   * LATER_MS): building some seventy cards takes the page ~50 ms, which the first figure
   * would otherwise wait for. */
  var FIRST_CARDS = 6;
  var LATER_MS = 300;
  var everything = false;
  var later = null;

  function buildEverything() {
    if (everything) { return; }
    everything = true;
    if (pages.length) { watch(); }
  }

  /* the cards of every group, built once per list of cards (Dash renders the groups empty and
   * may keep a group's node when the page is rendered again) */
  function build() {
    var groups = document.querySelectorAll(".paper-cards[data-cards]");
    for (var index = 0; index < groups.length; index++) {
      if (everything) {
        buildGroup(groups[index], Infinity);
      } else if (index === 0) {
        buildGroup(groups[index], FIRST_CARDS);
        later = later || window.setTimeout(buildEverything, LATER_MS);
      }
    }
  }

  /* the group's cards up to ``count`` (those built already stay) */
  function buildGroup(group, count) {
    var source = group.getAttribute("data-cards");
    if (group.paperCards !== source) {
      group.paperCards = source;
      try { group.paperEntries = JSON.parse(source); } catch (error) { group.paperEntries = []; }
      group.paperBuilt = 0;
      group.replaceChildren();
    }
    var upto = Math.min(group.paperEntries.length, count);
    if (group.paperBuilt >= upto) { return; }
    var fragment = document.createDocumentFragment();
    group.paperEntries.slice(group.paperBuilt, upto).forEach(function (entry) {
      fragment.appendChild(buildCard(entry));
    });
    group.appendChild(fragment);
    group.paperBuilt = upto;
  }

  function graphConfig(card) {
    var page = card.closest(".paper-figures");
    try {
      return JSON.parse(page.getAttribute("data-graph-config"));
    } catch (error) {
      return {displayModeBar: false, responsive: true};
    }
  }

  function evidenceText(claim) {
    if (!claim || !claim.found) { return ""; }
    return (claim.holds ? "✓ Seen in this card's data: " : "✗ Not seen in this card's data: ")
      + claim.found;
  }

  /* figures waiting to be drawn, one per animation frame */
  var queue = [];
  var drawing = false;

  /* the card highest on the page first: the reader's eye starts there, and a 3-D scene that
   * happened to arrive first must not hold up the cards above it */
  function byPosition(one, other) {
    return one.card.compareDocumentPosition(other.card) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
  }

  function drawNext() {
    queue.sort(byPosition);
    var next = queue.shift();
    if (!next) { drawing = false; return; }
    try {
      plot(next.card, next.content);
    } catch (error) {  // one broken figure must not stop the others
      failed(next.card);
    }
    window.requestAnimationFrame(function () {
      buildEverything();  // (the first figure is drawn: the other groups' cards now)
      drawNext();
    });
  }

  /* the graph lives in a node of its own inside the slot: Dash renders the slot's placeholder
   * and never re-renders the slot, so it leaves the graph alone */
  function plot(card, content) {
    var slot = document.getElementById(card.dataset.cardSlot);
    if (!slot || !window.Plotly) { failed(card); return; }
    var holder = document.getElementById(card.dataset.cardGraph);
    if (!holder) {
      holder = document.createElement("div");
      holder.id = card.dataset.cardGraph;
      holder.className = "paper-card-graph";
      slot.appendChild(holder);
    }
    holder.style.height = content.height + "px";
    var figure = content.figure || {};
    window.Plotly.react(holder, figure.data || [], figure.layout || {}, graphConfig(card));
    card.setAttribute("data-card-drawn", content.theme);
    card.removeAttribute("data-card-loading");
  }

  function draw(card, content, wanted) {
    var data = card.dataset;
    content.theme = wanted;
    queue.push({card: card, content: content});
    if (!drawing) {  // nothing being drawn: this one at once, the next ones frame by frame
      drawing = true;
      drawNext();
    }
    var evidence = document.getElementById(data.cardEvidence);
    if (evidence) {
      evidence.replaceChildren();
      typeset(evidence, evidenceText(content.claim));
      evidence.classList.toggle("is-holding", !!(content.claim && content.claim.holds));
      evidence.classList.toggle("is-failing", !!(content.claim && !content.claim.holds));
    }
    note(card, content.message || "");
  }

  function note(card, text) {
    var node = document.getElementById(card.dataset.cardNote);
    if (node) { node.textContent = text; }
  }

  function failed(card) {
    card.removeAttribute("data-card-loading");  // the next time it comes into view, again
    note(card, "This figure could not be loaded: reload the page to try again.");
  }

  function load(card) {
    var wanted = theme();
    if (card.getAttribute("data-card-drawn") === wanted || card.hasAttribute("data-card-loading")) {
      return;
    }
    card.setAttribute("data-card-loading", "");
    var source = card.dataset.cardSource + (wanted === "dark" ? "&theme=dark" : "");
    window.fetch(source, {credentials: "same-origin"})
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      })
      .then(function (content) {
        draw(card, content, wanted);
      })
      .catch(function () { failed(card); });
  }

  function visible(entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) { load(entry.target); }
    });
  }

  /* whether a card is within the observer's margin of the viewport now */
  function near(card) {
    var box = card.getBoundingClientRect(), reach = parseInt(MARGIN, 10);
    return box.bottom > -reach && box.top < window.innerHeight + reach;
  }

  function watch() {
    build();
    if (!observer) { observer = new IntersectionObserver(visible, {rootMargin: MARGIN}); }
    document.querySelectorAll(".paper-card[data-card-source]:not([data-card-watched])")
      .forEach(function (card) {
        card.setAttribute("data-card-watched", "");
        observer.observe(card);
        // the cards in view load now, not a frame later when the observer first reports
        if (near(card)) { load(card); }
      });
  }

  /* Dash renders pages after the script has run and swaps them on navigation: new cards are
   * looked for once a frame while the page changes, and only where there is a cards page. */
  var pending = false;
  var pages = document.getElementsByClassName("paper-figures");

  function changed() {
    if (pending) { return; }
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      if (pages.length) { watch(); }
    });
  }

  function start() {
    watch();
    new MutationObserver(changed).observe(document.body, {childList: true, subtree: true});
    if (window.matchMedia) {  // the cards already drawn follow a change of colour scheme
      window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", function () {
        document.querySelectorAll(".paper-card[data-card-drawn]").forEach(function (card) {
          observer.unobserve(card);
          observer.observe(card);
        });
      });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
