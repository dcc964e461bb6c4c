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
const InlineCSSPlugin = require('esbuild-plugin-inline-css');

esbuild.build({
  entryPoints: [path.join(__dirname, 'entry.js')],
  outfile: path.join(__dirname, '..', '..', '..', 'assets', 'plotly', 'plotly-lazy-rich.min.js'),
  format: 'iife',
  bundle: true,
  minify: true,
  legalComments: 'eof',
  plugins: [InlineCSSPlugin(), glsl({ minify: true }), environmentPlugin({ NODE_DEBUG: false })],
  alias: { regl: '@plotly/regl', stream: 'stream-browserify' },
  define: { global: 'window', 'define.amd': 'false' },
  target: 'es2016',
  logLevel: 'info'
}).catch(() => process.exit(1));
