/* The page's server-written text, drawn as HTML instead of a Dash component per element:
 * - Typeset (app/ui/notation.py): a label or a sentence as one <span>, its symbols in
 *   italics and its subscripts and powers set (text, <i>, <sub> and <sup> only);
 * - Prose (app/ui/prose.py): an explanation as one <div>, its Markdown as HTML and its
 *   formulas as MathML, which the browser lays out itself.
 * The markup is written and escaped by the server. Loaded before Dash's renderer starts, as
 * every asset script is. */
(function () {
  "use strict";
  var React = window.React;

  function Typeset(props) {
    return React.createElement("span", {
      className: "typeset",
      dangerouslySetInnerHTML: { __html: props.markup },
    });
  }

  /* A formula in a sentence does not break across lines: one wider than the explanation (a
   * long one, on a phone) becomes a line of its own that scrolls sideways ("too-wide" in
   * style.css), as a display formula does; the others stay in their sentences. Measured again
   * whenever the explanation's size changes (a phone turned) and once the font has come. */
  function fitFormulas(root) {
    var formulas = root.querySelectorAll("math:not([display='block'])");
    var k;
    for (k = 0; k < formulas.length; k++) { formulas[k].classList.remove("too-wide"); }
    var room = root.clientWidth;
    var wide = [];
    for (k = 0; k < formulas.length; k++) {
      if (formulas[k].getBoundingClientRect().width > room) { wide.push(formulas[k]); }
    }
    for (k = 0; k < wide.length; k++) { wide[k].classList.add("too-wide"); }
  }

  function Prose(props) {
    var ref = React.useRef(null);
    React.useLayoutEffect(function () {
      var root = ref.current;
      if (!root || root.querySelector("math") === null) { return undefined; }
      var fit = function () { fitFormulas(root); };
      fit();
      if (document.fonts && document.fonts.ready) { document.fonts.ready.then(fit); }
      if (!window.ResizeObserver) { return undefined; }
      var observer = new window.ResizeObserver(fit);
      observer.observe(root);
      return function () { observer.disconnect(); };
    }, [props.markup]);
    return React.createElement("div", {
      ref: ref,
      className: props.className,
      dangerouslySetInnerHTML: { __html: props.markup },
    });
  }

  window.lazy_rich = Object.assign(window.lazy_rich || {}, { Typeset: Typeset, Prose: Prose });
})();
