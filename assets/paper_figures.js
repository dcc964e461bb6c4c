/* The paper-figures page: each card's figure is drawn when the card comes into view.
 *
 * A card (article.paper-card) names where its content is served (data-card-source): the figure,
 * the evidence for its claim and, if it could not be computed, why. The content is computed once
 * per deployment on the server; here it is fetched when the card is within a screen of the
 * viewport, and a plotly graph is put into the card's slot through Dash (set_props), so that a
 * page of some fifty cards draws only those a reader looks at. The figures follow the system's
 * colour scheme, as the views' plots do. */
(function () {
  "use strict";

  var MARGIN = "400px 0px";
  var observer = null;

  function theme() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches
      ? "dark" : "light";
  }

  function setProps(id, props) {
    if (window.dash_clientside && window.dash_clientside.set_props) {
      window.dash_clientside.set_props(id, props);
    }
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

  function draw(card, content) {
    var data = card.dataset;
    setProps(data.cardSlot, {children: {
      type: "Graph",
      namespace: "dash_core_components",
      props: {
        id: data.cardGraph,
        figure: content.figure,
        config: graphConfig(card),
        style: {height: content.height + "px"}
      }
    }});
    if (data.cardEvidence && document.getElementById(data.cardEvidence)) {
      setProps(data.cardEvidence, {children: evidenceText(content.claim)});
      var node = document.getElementById(data.cardEvidence);
      node.classList.toggle("is-holding", !!(content.claim && content.claim.holds));
      node.classList.toggle("is-failing", !!(content.claim && !content.claim.holds));
    }
    setProps(data.cardNote, {children: content.message || null});
    card.setAttribute("data-card-drawn", theme());
  }

  function failed(card) {
    card.removeAttribute("data-card-loading");
    setProps(card.dataset.cardNote, {
      children: "This figure could not be loaded: reload the page to try again."
    });
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
        card.removeAttribute("data-card-loading");
        draw(card, content);
      })
      .catch(function () { failed(card); });
  }

  function visible(entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) { load(entry.target); }
    });
  }

  function watch() {
    if (!observer) { observer = new IntersectionObserver(visible, {rootMargin: MARGIN}); }
    document.querySelectorAll(".paper-card[data-card-source]:not([data-card-watched])")
      .forEach(function (card) {
        card.setAttribute("data-card-watched", "");
        observer.observe(card);
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
