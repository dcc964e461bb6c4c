/* Browser-side behaviour of the dashboard: moving the "current time" cursor through every
 * figure while scrubbing or playing, without a round trip to the server. */
(function () {
  "use strict";

  function format(value) {
    if (!isFinite(value)) { return String(value); }
    var magnitude = Math.abs(value);
    if (magnitude !== 0 && (magnitude < 1e-3 || magnitude >= 1e4)) { return value.toExponential(2); }
    return Number(value.toPrecision(4)).toString();
  }

  function clampIndex(index, count) {
    var i = Math.round(Number(index) || 0);
    return Math.max(0, Math.min(count - 1, i));
  }

  function moveCursor(figure, key, frames, i) {
    var changed = false;
    var data = figure.data || [];
    var layout = figure.layout || {};
    var point = frames.cursor && frames.cursor[key];
    var heat = frames.heatmaps && frames.heatmaps[key];
    if (point || heat) {
      data = data.map(function (trace) {
        if (trace.uid !== "cursor") { return trace; }
        changed = true;
        var moved = Object.assign({}, trace);
        if (heat) { moved.z = heat[i]; }
        if (point) {
          // one point per frame, or a list of points (e.g. every drawn neuron)
          moved.x = Array.isArray(point.x[i]) ? point.x[i] : [point.x[i]];
          moved.y = Array.isArray(point.y[i]) ? point.y[i] : [point.y[i]];
          if (point.z) { moved.z = Array.isArray(point.z[i]) ? point.z[i] : [point.z[i]]; }
        }
        return moved;
      });
    }
    var line = frames.lines && frames.lines[key];
    if (line && layout.shapes) {
      layout = Object.assign({}, layout, {
        shapes: layout.shapes.map(function (shape) {
          if (shape.name !== "cursor") { return shape; }
          changed = true;
          return Object.assign({}, shape, { x0: line[i], x1: line[i] });
        })
      });
    }
    return changed ? Object.assign({}, figure, { data: data, layout: layout }) : null;
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    lazyRich: {
      scrub: function (index, frames) {
        var figures = Array.prototype.slice.call(arguments, 2);
        var noUpdate = window.dash_clientside.no_update;
        if (!frames || !frames.t || !frames.t.length) {
          return figures.map(function () { return noUpdate; }).concat([noUpdate]);
        }
        var i = clampIndex(index, frames.t.length);
        var order = frames.order || [];
        var out = figures.map(function (figure, k) {
          if (!figure || !order[k]) { return noUpdate; }
          var moved = moveCursor(figure, order[k], frames, i);
          return moved === null ? noUpdate : moved;
        });
        out.push("t = " + format(frames.t[i]));
        try {  // the frame is part of the link, without adding a history entry
          var url = new URL(window.location.href);
          url.searchParams.set("frame", String(i));
          window.history.replaceState(window.history.state, "", url.toString());
        } catch (error) { /* not fatal */ }
        return out;
      },

      togglePlay: function (clicks, disabled, value, last) {
        var noUpdate = window.dash_clientside.no_update;
        if (disabled) {  // start; from the beginning if at the end
          return [false, "❚❚ Pause", value >= last ? 0 : noUpdate];
        }
        return [true, "▶ Play", noUpdate];
      },

      readout: function (exponent) {
        var number = Number(exponent);
        return isFinite(number) ? format(Math.pow(10, number)) : window.dash_clientside.no_update;
      },

      tick: function (n, value, last) {
        var noUpdate = window.dash_clientside.no_update;
        var next = (Number(value) || 0) + 1;
        if (next >= last) { return [last, true, "▶ Play"]; }
        return [next, noUpdate, noUpdate];
      }
    }
  });

  /* A worker that dies mid-request (a crash, a restart by the server) breaks that request's
   * connection — before the answer or halfway through it — and Dash would leave the plots
   * stale. Callbacks are pure functions of their inputs, so resending is safe: a callback
   * request whose answer does not arrive whole, or that gets a 502/503/504 from a proxy, is
   * sent again — twice at most, after a short pause. */
  var plainFetch = window.fetch.bind(window);
  var RETRIES = 2;
  function pause(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }
  window.fetch = function (resource, init) {
    if (typeof resource !== "string" || resource.indexOf("_dash-update-component") === -1) {
      return plainFetch(resource, init);
    }
    var attempt = 0;
    function send() {
      return plainFetch(resource, init).then(function (response) {
        if ([502, 503, 504].indexOf(response.status) !== -1 && attempt < RETRIES) {
          return retry();
        }
        // read the whole body here, so that a connection lost halfway is retried too
        return response.arrayBuffer().then(function (body) {
          return new Response(body, {
            status: response.status, statusText: response.statusText, headers: response.headers
          });
        });
      }).catch(function (error) {
        if ((error && error.name === "AbortError") || attempt >= RETRIES) { throw error; }
        return retry();
      });
    }
    function retry() {
      attempt += 1;
      return pause(250 * attempt).then(send);
    }
    return send();
  };

  /* Log-scale sliders work on log10 of the value; their tooltip shows the value itself. */
  window.dccFunctions = Object.assign({}, window.dccFunctions, {
    lazyRichPow10: function (exponent) { return format(Math.pow(10, exponent)); }
  });
})();
