/* Background jobs (app/core/jobs.py), the page's side.
 *
 * - How a job ended wakes the view's gate (assets/app.js): when its "-job-done" store changes,
 *   through Dash's callback chain, with a request that goes out even for the values it last
 *   asked, so that the server callback, reading the store as its State, sees how the job ended:
 *   the map is drawn from the cache, or the page says why not. So does a partial result with
 *   more parts than the page drew ("-job-partial"): the server draws it while the job runs.
 * - One poll in flight: the poll's interval ticks every POLL_MS, but a tick goes to the server
 *   only once Dash has stored the answer to the poll before ("-job-polled"). Dash drops the
 *   answer of a callback still on its way when the same callback is asked again, so on a busy
 *   server (or a slow phone) whose polls take longer than the interval, every answer was
 *   dropped by the next tick and the page never showed the job's progress or its end.
 */
(function () {
  "use strict";
  var noUpdate = function () { return window.dash_clientside.no_update; };
  var POLL_TIMEOUT_MS = 10000;  // a poll whose answer never came (a failed request) frees it
  var polling = {};  // view → when its poll in flight went out

  function keyOf(id, suffix) {
    return typeof id === "string" && id.endsWith(suffix) ? id.slice(0, -suffix.length) : "";
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lazyRichJobs: {
      /* the job ended, or has a partial result the page has not drawn: the gate asks again */
      ended: function (done) {
        if (!done) { return noUpdate(); }
        return {force: Date.now()};
      },

      /* the interval's tick → the poll's request, unless one is on its way */
      tick: function (n) {
        var out = window.dash_clientside.callback_context.outputs_list;
        var key = keyOf(out && (Array.isArray(out) ? out[0] : out).id, "-job-tick");
        var since = polling[key];
        if (since && Date.now() - since < POLL_TIMEOUT_MS) { return noUpdate(); }
        polling[key] = Date.now();
        return n;
      },

      /* Dash has stored a poll's answer: the next tick may go out. (A callback without
       * outputs.) */
      polled: function () {
        var context = window.dash_clientside.callback_context;
        var trigger = context && context.triggered && context.triggered[0];
        var id = trigger && typeof trigger.prop_id === "string" ? trigger.prop_id : "";
        delete polling[keyOf(id, "-job-polled.data")];
      }
    }
  });
})();
