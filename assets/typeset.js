/* The page's typeset text (app/ui/notation.py, Typeset): one <span> for a label or a
 * sentence whose symbols are in italics and whose subscripts and powers are set, instead of
 * a Dash component per letter. The markup is written and escaped by the server (text, <i>,
 * <sub> and <sup> only). Loaded before Dash's renderer starts, as every asset script is. */
(function () {
  "use strict";
  function Typeset(props) {
    return window.React.createElement("span", {
      className: "typeset",
      dangerouslySetInnerHTML: { __html: props.markup },
    });
  }
  window.lazy_rich = Object.assign(window.lazy_rich || {}, { Typeset: Typeset });
})();
