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

const lazyPicking = {
  name: 'lazy-picking',
  setup(build) {
    build.onLoad({ filter: /plotly\.js[\\/]stackgl_modules[\\/]index\.js$/ }, (args) => {
      let source = fs.readFileSync(args.path, 'utf8');
      for (const [before, after] of LAZY_PICKING) {
        if (source.split(before).length !== 2) {
          throw new Error('lazy picking: an edit does not match ' + args.path + ': ' + before);
        }
        source = source.replace(before, after);
      }
      return { contents: source, loader: 'js' };
    });
  }
};

esbuild.build({
  entryPoints: [path.join(__dirname, 'entry.js')],
  outfile: path.join(__dirname, '..', '..', '..', 'assets', 'plotly', 'plotly-lazy-rich.min.js'),
  format: 'iife',
  bundle: true,
  minify: true,
  legalComments: 'eof',
  plugins: [lazyPicking, InlineCSSPlugin(), glsl({ minify: true }), environmentPlugin({ NODE_DEBUG: false })],
  alias: { regl: '@plotly/regl', stream: 'stream-browserify' },
  define: { global: 'window', 'define.amd': 'false' },
  target: 'es2016',
  logLevel: 'info'
}).catch(() => process.exit(1));
