/* The trace types the explorer draws (app/ui/figures.py and the views' plots; scatter is in
 * plotly.js's core): a new one must be added here and the bundle built again — the test
 * tests/integration/test_plotly_bundle.py lists the types every view draws. */
var Plotly = require('plotly.js/lib/core');

Plotly.register([
  require('plotly.js/lib/heatmap'),
  require('plotly.js/lib/scatter3d'),
  require('plotly.js/lib/surface'),
  require('plotly.js/lib/table')
]);

window.Plotly = Plotly;
