// simkit serve: how both pages write numbers, in the one interval notation of the report and
// the CLI (simkit.views): the estimate, then its 95% interval in square brackets, signed for
// differences -- "63.0% [53.2, 71.8]", "+16.5 points [+10.6, +22.4]", "+0.050 [-0.010, +0.110]".
// Loaded before app.js and explore.js; the one name it defines is FMT.
"use strict";

const FMT = (() => {
  // x with `digits` decimals; `signed` adds "+" to positives and zero (as Python's "+.3f")
  function num(x, digits, signed) {
    let text = x.toFixed(digits);
    if (Number(text) === 0) text = (0).toFixed(digits); // no "-0.0"
    return signed && !text.startsWith("-") ? "+" + text : text;
  }

  // "[0.530, 0.610]"
  function bounds(low, high, digits, signed) {
    return "[" + num(low, digits, signed) + ", " + num(high, digits, signed) + "]";
  }

  // "0.570 [0.530, 0.610]"
  function interval(p, low, high, digits, signed) {
    return num(p, digits, signed) + " " + bounds(low, high, digits, signed);
  }

  // a probability in percent without its sign: ">99.9" and "<0.1" rather than rounding to
  // 100 or 0 what is not certain or impossible
  function percent(p) {
    if (p >= 0.9995 && p < 1) return ">99.9";
    if (p > 0 && p < 0.0005) return "<0.1";
    return num(100 * p, 1, false);
  }

  // a probability as a percent: "63.0%"
  function pct(p) {
    return percent(p) + "%";
  }

  // the bounds of a probability, in percent: "[53.2, 71.8]" ("<0.1% [<0.1, <0.1]")
  function pctBounds(low, high) {
    return "[" + percent(low) + ", " + percent(high) + "]";
  }

  // a difference of probabilities in percentage points: "+16.5"
  function points(d) {
    return num(100 * d, 1, true);
  }

  // its bounds: "[+10.6, +22.4]"
  function pointsBounds(low, high) {
    return bounds(100 * low, 100 * high, 1, true);
  }

  return Object.freeze({ num, bounds, interval, pct, pctBounds, points, pointsBounds });
})();
