/* plotly.js with only the trace types the explorer draws (entry.js), built the way plotly.js
 * builds its own bundles (its esbuild-config.js), minified, into the app's assets:
 *
 *     cd docs/tools/plotly-bundle && npm install && npm run build
 *
 * dcc.Graph draws with the page's window.Plotly when there is one (so Dash's full bundle,
 * 4.8 MB, is never fetched). Keep plotly.js at the version the installed plotly package
 * ships (plotly.offline.get_plotlyjs_version(); tests/unit/test_browser_contract.py). */
const path = require('path');
const esbuild = require('esbuild');
const { environmentPlugin } = require('esbuild-plugin-environment');
const { glsl } = require('esbuild-plugin-glsl');
const fs = require('fs');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');

/* A 3-D scene's picking buffer (what hover reads) is read back on the first hover after a
 * change, not after every draw. plotly.js draws the scene a second time into a picking buffer
 * after each change and reads it back a millisecond later (gl-select-static's end): without a
 * GPU that read waits for the software renderer, on every slider step of /single-neuron, for
 * a hover that mostly never comes. (Drawing the picking buffer itself on hover, too, left the
 * scene's axis labels broken after a hover.) Each edit is an exact text of plotly.js 4.1.1;
 * the build fails if one is not found (a new plotly.js). */
const LAZY_PICKING = [
  [ // gl-select-static: a drawn picking buffer is read back when queried, not 1 ms later
    '  gl.bindFramebuffer(gl.FRAMEBUFFER, null)\n  if(!this._readTimeout) {\n    clearTimeout(this._readTimeout)\n  }\n  this._readTimeout = setTimeout(this._readCallback, 1)\n}',
    '  gl.bindFramebuffer(gl.FRAMEBUFFER, null)\n  this._unread = true\n}'
  ],
  [
    '  var shape = this.fbo.shape.slice()\n\n  x = x|0\n  y = y|0\n',
    '  if(this._unread) {\n    this._unread = false\n    this._readCallback()\n  }\n  var shape = this.fbo.shape.slice()\n\n  x = x|0\n  y = y|0\n'
  ]
];

/* A surface is drawn at the grid the server sends. plotly.js resamples a surface of fewer
 * than 128 points a side, by interpolation, to at least 128 a side, on every change: the
 * single-neuron view's hyperboloid (a grid of 33 × 22 points, exact from the formula) was
 * drawn as 727 × 133 vertices, a third of a δ step without a GPU (to paint, median ~205 ->
 * ~145 ms). The sheets are computed at the resolution they are drawn at (solvers/single_neuron
 * level_set). */
const SURFACE_AS_SENT = [
  [
    '    if(this.refineData === true) {\n        this.dataScaleX = this.estimateScale(coords[0].shape[0], 0);',
    '    if(false) {  // lazy-rich: drawn as sent (docs/tools/plotly-bundle/build.js)\n        this.dataScaleX = this.estimateScale(coords[0].shape[0], 0);'
  ]
];

/* Exact text edits of plotly.js 4.1.1 by file; the build fails if one is not found (a new
 * plotly.js). */
const EDITS = [
  { name: 'lazy picking', file: /plotly\.js[\\/]stackgl_modules[\\/]index\.js$/, edits: LAZY_PICKING },
  { name: 'surface as sent', file: /plotly\.js[\\/]src[\\/]traces[\\/]surface[\\/]convert\.js$/, edits: SURFACE_AS_SENT }
];

const editPlotly = {
  name: 'edit-plotly',
  setup(build) {
    for (const { name, file, edits } of EDITS) {
      build.onLoad({ filter: file }, (args) => {
        let source = fs.readFileSync(args.path, 'utf8');
        for (const [before, after] of edits) {
          if (source.split(before).length !== 2) {
            throw new Error(name + ': an edit does not match ' + args.path + ': ' + before);
          }
          source = source.replace(before, after);
        }
        return { contents: source, loader: 'js' };
      });
    }
  }
};

esbuild.build({
  entryPoints: [path.join(__dirname, 'entry.js')],
  outfile: path.join(__dirname, '..', '..', '..', 'assets', 'plotly', 'plotly-lazy-rich.min.js'),
  format: 'iife',
  bundle: true,
  minify: true,
  legalComments: 'eof',
  plugins: [editPlotly, InlineCSSPlugin(), glsl({ minify: true }), environmentPlugin({ NODE_DEBUG: false })],
  alias: { regl: '@plotly/regl', stream: 'stream-browserify' },
  define: { global: 'window', 'define.amd': 'false' },
  target: 'es2016',
  logLevel: 'info'
}).catch(() => process.exit(1));
