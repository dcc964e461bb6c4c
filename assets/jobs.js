/* Background jobs (app/core/jobs.py): when a view's job ends — its "-job-done" store changes —
 * its gate (assets/app.js) is woken through Dash's callback chain, with a request that goes out
 * even for the values it last asked, so that the server callback, reading the store as its
 * State, sees how the job ended: the map is drawn from the cache, or the page says why not.
 */
(function () {
  "use strict";
  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lazyRichJobs: {
      ended: function (done) {
        if (!done) { return window.dash_clientside.no_update; }
        return {force: Date.now()};
      }
    }
  });
})();
