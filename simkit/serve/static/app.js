// simkit serve: the odds calculator page. Hand-written, no dependencies, no build step.
// The whole state lives in the URL (?vs=shoggoth&w=never&seen=3.17&f=2.0.1.0.0&f=...):
// every change pushes a history entry, so links are shareable and the back button works.
"use strict";

const CONFIG = JSON.parse(document.getElementById("config").textContent);
const UNITS = CONFIG.units;
const SAVED_KEY = "simkit.savedForces";
const LETTERS = "ABCD";
let state = null;

const pct = FMT.pct; // static/format.js: the notation both pages share

// ---- the state and the URL ----

function defaultState() {
  return { vs: ["shoggoth"], w: "never", seen: [], forces: [[2, 0, 1, 0, 0]] };
}

function parseForce(text) {
  const parts = text.split(".").map((x) => parseInt(x, 10));
  if (parts.length !== UNITS.length || parts.some((x) => !(x >= 0))) return null;
  return parts.map((n, i) => Math.min(n, UNITS[i].max));
}

function readUrl() {
  const params = new URLSearchParams(location.search);
  const s = defaultState();
  if (params.has("vs")) s.vs = params.get("vs").split(/[.,]/).filter(Boolean);
  if (params.has("w")) s.w = params.get("w");
  if (params.has("seen")) {
    s.seen = params.get("seen").split(/[.,]/).filter(Boolean).map((x) => parseInt(x, 10));
  }
  const forces = params.getAll("f").map(parseForce).filter(Boolean);
  if (params.getAll("f").length) s.forces = forces.slice(0, CONFIG.max_forces);
  return s;
}

function queryString(s, force) {
  const parts = ["vs=" + s.vs.join("."), "w=" + s.w];
  if (s.seen.length) parts.push("seen=" + s.seen.join("."));
  for (const f of force ? [force] : s.forces) parts.push("f=" + f.join("."));
  return parts.map((p) => p.split("=").map(encodeURIComponent).join("=").replace(/%2E/g, ".")).join("&");
}

function commit() {
  const url = location.pathname + "?" + queryString(state);
  if (url !== location.pathname + location.search) history.pushState(null, "", url);
  hideError();
  render();
}

window.addEventListener("popstate", () => {
  state = readUrl();
  hideError();
  render();
});

function showError(text) {
  const box = document.getElementById("error");
  box.textContent = text;
  box.hidden = false;
}

function hideError() {
  document.getElementById("error").hidden = true;
}

// ---- costs ----

function costs(force) {
  let gold = 0;
  force.forEach((n, i) => (gold += n * UNITS[i].gold));
  const types = CONFIG.tp_units.filter((name) => force[UNITS.findIndex((u) => u.name === name)] > 0);
  return { gold, tp: Math.max(1, types.length) };
}

function forceLabel(force) {
  return force.map((n, i) => (n ? n + " " + UNITS[i].label : null)).filter(Boolean).join(", ") || "no units";
}

// ---- saved forces (this browser only) ----

function savedForces() {
  try {
    const list = JSON.parse(localStorage.getItem(SAVED_KEY) || "[]");
    return Array.isArray(list) ? list.filter((x) => Array.isArray(x) && parseForce(x.join("."))) : [];
  } catch (e) {
    return [];
  }
}

function saveForce(force) {
  const list = savedForces().filter((f) => f.join(".") !== force.join("."));
  list.unshift(force.slice());
  localStorage.setItem(SAVED_KEY, JSON.stringify(list.slice(0, 12)));
  render();
}

// ---- rendering ----

function render() {
  const app = document.getElementById("app");
  app.replaceChildren(renderSetup(), renderForces());
  state.forces.forEach((force, i) => fetchOdds(i, force));
}

function renderSetup() {
  const oldOnes = CONFIG.old_ones;
  const pick = (index) => {
    const select = el(
      "select",
      {
        id: "vs" + index,
        "aria-label": index ? "second Old One in the hex" : "Old One",
        onchange: (e) => {
          const v = state.vs.slice();
          if (e.target.value) v[index] = e.target.value;
          else v.splice(index, 1);
          state.vs = v.filter(Boolean);
          if (!state.vs.length) state.vs = ["shoggoth"];
          state.seen = [];
          commit();
        },
      },
      index ? el("option", { value: "" }, "(no second)") : null,
      oldOnes.map((o) =>
        el("option", { value: o.name, selected: state.vs[index] === o.name }, o.label + " (" + o.vp + " VP)"),
      ),
    );
    return select;
  };
  const withdraw = el(
    "fieldset",
    { class: "withdraw" },
    el("legend", {}, "Withdraw"),
    Object.entries(CONFIG.withdraw).map(([key, text]) =>
      el(
        "label",
        {},
        el("input", {
          type: "radio",
          name: "w",
          value: key,
          checked: state.w === key,
          onchange: () => {
            state.w = key;
            commit();
          },
        }),
        " " + text,
      ),
    ),
  );
  return el(
    "section",
    { class: "setup" },
    el("div", { class: "row" }, el("label", { for: "vs0" }, "Fight against "), pick(0), " ", pick(1)),
    withdraw,
    renderSeen(),
  );
}

function renderSeen() {
  // cards that do the same against every Old One in the fight share a button
  const groups = new Map();
  for (const card of CONFIG.cards) {
    const key = state.vs.map((v) => card.faces[v]).join(" | ");
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(card.card);
  }
  const seen = new Set(state.seen);
  const buttons = [...groups.entries()]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([faceText, cards]) => {
      const k = cards.filter((c) => seen.has(c)).length;
      return el(
        "button",
        {
          type: "button",
          class: "face" + (k ? " seen" : ""),
          title: "cards " + cards.join(", ") + ": tap to mark one more as seen",
          "data-face": faceText,
          onclick: () => {
            const free = cards.filter((c) => !seen.has(c));
            if (free.length) state.seen = state.seen.concat([free[0]]).sort((a, b) => a - b);
            else state.seen = state.seen.filter((c) => !cards.includes(c));
            commit();
          },
        },
        // a long face breaks after its '/' (before the purple cubes, Sanity, damage), not inside a code
        el("span", { class: "facetext" }, faceText.split("/").flatMap((part, i) => (i ? ["/", el("wbr"), part] : [part]))),
        el("span", { class: "count" }, k + "/" + cards.length),
      );
    });
  return el(
    "details",
    { class: "seen", open: state.seen.length ? true : null },
    el("summary", {}, "Cards already seen: " + (state.seen.length ? state.seen.length : "none")),
    el(
      "p",
      { class: "note" },
      "Tap a face each time a card with it went to the discard pile (a full count starts again at 0). ",
      "Face: the unit types that score a hit, then p = purple cubes, s = Sanity lost, a = damage to an Airship. ",
      "Codes: I Infantry, AC Armoured Car, Ar Artillery, T Armoured Train, Ai Airship.",
    ),
    el("div", { class: "faces" }, buttons),
    state.seen.length
      ? el("button", { type: "button", class: "small", onclick: () => { state.seen = []; commit(); } }, "clear seen cards")
      : null,
  );
}

function renderForces() {
  const cols = state.forces.map((force, i) => renderForce(force, i));
  const tools = el("div", { class: "tools" });
  if (state.forces.length < CONFIG.max_forces) {
    tools.append(
      el(
        "button",
        {
          type: "button",
          id: "add-force",
          onclick: () => {
            state.forces = state.forces.concat([state.forces[state.forces.length - 1].slice()]);
            commit();
          },
        },
        "+ compare another force",
      ),
    );
    const saved = savedForces();
    if (saved.length) {
      tools.append(
        el(
          "select",
          {
            "aria-label": "add a saved force",
            onchange: (e) => {
              if (!e.target.value) return;
              state.forces = state.forces.concat([parseForce(e.target.value)]);
              commit();
            },
          },
          el("option", { value: "" }, "add a saved force..."),
          saved.map((f) => el("option", { value: f.join(".") }, forceLabel(f))),
        ),
      );
    }
  }
  return el("section", { class: "forces" }, el("div", { class: "grid" }, cols), tools);
}

function renderForce(force, index) {
  const c = costs(force);
  const rows = UNITS.map((u, i) =>
    el(
      "div",
      { class: "unit" },
      el("span", { class: "uname" }, u.label, el("small", {}, " " + u.gold + " Gold")),
      el(
        "button",
        {
          type: "button",
          class: "pm",
          "aria-label": "one " + u.label + " less",
          "data-unit": u.name,
          "data-op": "minus",
          disabled: force[i] === 0,
          onclick: () => {
            state.forces[index][i] -= 1;
            commit();
          },
        },
        "\u2212",
      ),
      el("output", { class: "n", "data-unit": u.name }, String(force[i])),
      el(
        "button",
        {
          type: "button",
          class: "pm",
          "aria-label": "one " + u.label + " more",
          "data-unit": u.name,
          "data-op": "plus",
          disabled: force[i] >= u.max,
          onclick: () => {
            state.forces[index][i] += 1;
            commit();
          },
        },
        "+",
      ),
    ),
  );
  const head = el(
    "div",
    { class: "fhead" },
    el("h2", {}, "Force " + LETTERS[index]),
    el("span", { class: "cost" }, c.gold + " Gold \u00b7 " + c.tp + " TP"),
  );
  const actions = el(
    "div",
    { class: "factions" },
    el("button", { type: "button", class: "small", onclick: () => saveForce(force) }, "save force"),
    state.forces.length > 1
      ? el(
          "button",
          {
            type: "button",
            class: "small",
            onclick: () => {
              state.forces = state.forces.filter((_, j) => j !== index);
              commit();
            },
          },
          "remove",
        )
      : null,
  );
  return el(
    "article",
    { class: "force", id: "force" + index },
    head,
    rows,
    actions,
    el("div", { class: "result", id: "result" + index }, el("p", { class: "busy" }, "computing\u2026")),
  );
}

async function fetchOdds(index, force) {
  const key = queryString(state, force);
  const box = document.getElementById("result" + index);
  box.dataset.q = key;
  let answer;
  try {
    const response = await fetch("/api/odds?" + key, { credentials: "same-origin" });
    answer = await response.json();
    if (!response.ok) throw new Error(answer.error || "the server answered " + response.status);
  } catch (e) {
    if (box.isConnected && box.dataset.q === key) {
      box.replaceChildren(el("p", { class: "error" }, String(e.message || e)));
    }
    return;
  }
  if (box.isConnected && box.dataset.q === key) box.replaceChildren(renderAnswer(answer));
}

function renderAnswer(a) {
  const exact = a.method === "exact";
  const head = el(
    "div",
    { class: "headline" },
    el("span", { class: "pd", "data-testid": "p-destroy" }, pct(a.p_destroy)),
    el("span", {}, " chance to destroy the " + a.vs.join(" + ").replace(/_/g, "-")),
    el(
      "div",
      { class: "ci", title: exact ? null : "95% interval of P(destroy), in percent" },
      exact ? "exact" : FMT.pctBounds(...a.p_destroy_ci95),
    ),
    el("div", { class: "method", "data-method": a.method }, a.method_note),
  );
  const outcomes = el(
    "table",
    { class: "outcomes" },
    el("caption", {}, "How the fight ends"),
    el("tbody", {}, a.outcomes.filter((o) => o.p > 0 || o.key === "win").map((o) =>
      el(
        "tr",
        {},
        el("th", { class: "l" }, o.name, el("small", {}, o.explain)),
        el("td", {}, pct(o.p), exact ? null : el("small", {}, FMT.pctBounds(...o.ci95))),
      ),
    )),
  );
  const maxK = Math.max(...Object.values(a.losses.per_type).map((r) => r.length));
  const losses = el(
    "table",
    { class: "losses" },
    el("caption", {}, "Units lost per type (Monte Carlo, " + a.losses.games.toLocaleString("en") + " fights)"),
    el("thead", {}, el("tr", {}, el("th", { class: "l" }, "lost"), [...Array(maxK).keys()].map((k) => el("th", {}, String(k))))),
    el(
      "tbody",
      {},
      Object.entries(a.losses.per_type).map(([unit, rows]) =>
        el(
          "tr",
          {},
          el("th", { class: "l" }, unit.replace(/_/g, " ")),
          [...Array(maxK).keys()].map((k) =>
            k < rows.length
              ? el("td", { title: pct(rows[k].p) + " " + FMT.pctBounds(...rows[k].ci95) + " (95% interval)" }, pct(rows[k].p))
              : el("td", {}),
          ),
        ),
      ),
    ),
  );
  const facts = el(
    "p",
    { class: "note" },
    "Expected Gold lost " + a.expected_gold_lost.toFixed(2) + "; cards drawn " + a.expected_cards.toFixed(1) +
      "; answered in " + Math.round(a.ms) + " ms" + (a.cached ? " (cached)" : "") + ".",
  );
  return el("div", {}, head, outcomes, losses, renderRule(a), facts);
}

// "withdraw if dmg \u2264 2" -> "\u2264\u00a02", "withdraw Airships at dmg 0, 2" -> "Airships
// at\u00a00, 2" (the legend says what a number means; the cell's title has the whole text)
function cellText(c) {
  if (!c) return "\u2013";
  const m = c.match(/^(withdraw.*?) (if dmg \u2264|at dmg) (.+)$/);
  if (!m) return c;
  const who = m[1] === "withdraw" ? "" : m[1].replace("withdraw ", "") + " ";
  const when = m[2] === "at dmg" ? "at\u00a0" : "\u2264\u00a0";
  return who + when + m[3];
}

function renderRule(a) {
  if (!a.rule) return null;
  const r = a.rule;
  const wrap = el("div", { class: "rule" }, el("h3", {}, "When to withdraw"));
  wrap.append(el("p", { class: "note" }, a.withdraw_means + ". Check after each card."));
  if (!r.rows.length) {
    wrap.append(el("p", {}, "Never withdraw: fighting on is always at least as good."));
    return wrap;
  }
  const SHOWN = 8;
  const body = el(
    "tbody",
    {},
    r.rows.map((row, i) =>
      el(
        "tr",
        { hidden: i >= SHOWN },
        el("th", { class: "l" }, row.units),
        row.cells.map((c) => el("td", { class: c.startsWith("withdraw") ? "go" : "", title: c }, cellText(c))),
      ),
    ),
  );
  wrap.append(
    el(
      "table",
      {},
      el("thead", {}, el("tr", {}, el("th", { class: "l" }, "your units left"), r.columns.map((c) => el("th", {}, c)))),
      body,
    ),
  );
  if (r.rows.length > SHOWN) {
    const more = el(
      "button",
      {
        type: "button",
        class: "small",
        onclick: () => {
          body.querySelectorAll("tr[hidden]").forEach((tr) => (tr.hidden = false));
          more.remove();
        },
      },
      "show all " + r.rows.length + " situations",
    );
    wrap.append(more);
  }
  wrap.append(
    el(
      "p",
      { class: "note" },
      "A number \u2264\u00a0k: withdraw while the Old One has at most k damage, else stay" +
        (r.rows.some((row) => row.cells.some((c) => c.includes(" at dmg "))) ? "; at\u00a0j,\u00a0k: withdraw at exactly those damages" : "") +
        " (" + r.damage_means +
        "). Any other situation: " + r.otherwise + ". (" + r.withdrawing + " of the table's " +
        r.states + " states withdraw; the rule ignores which cards were seen.)",
    ),
  );
  return wrap;
}

state = readUrl();
render();
