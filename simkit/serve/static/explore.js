// simkit serve: the design explorer page. Hand-written, no dependencies, no build step.
// The whole state lives in the URL (?set=PATH=VALUE&humans=2&difficulty=normal&games=2000):
// running a what-if pushes a history entry, so links are shareable and the back button works.
"use strict";

const CONFIG = JSON.parse(document.getElementById("config").textContent);
const PATHS = new Map(CONFIG.paths.map((p) => [p.path, p]));
const LEVEL_NAME = { normal: "Normal", hard: "Hard", heroic: "Heroic" };
let state = null;
let table = null;

// static/format.js: the notation both pages share
const pct = FMT.pct;
const pts = FMT.points;

// a command line that wraps between its options, never inside one (copies as typed)
function renderCommand(command) {
  const words = command.split(" ");
  const groups = [];
  for (const w of words) {
    const last = groups[groups.length - 1];
    if (last && last.length === 1 && last[0].startsWith("--") && !w.startsWith("--")) last.push(w);
    else groups.push([w]);
  }
  const code = el("code", {});
  groups.forEach((g, i) => {
    if (i) code.append(" ");
    code.append(el("span", { class: "arg" }, g.join(" ")));
  });
  return el("pre", { class: "command", "data-testid": "command" }, code);
}

function level(name) {
  return LEVEL_NAME[name] || name;
}

// ---- the state and the URL ----

function defaultState() {
  return { set: null, humans: 2, difficulty: "normal", games: CONFIG.games.default, seed: 0 };
}

function readUrl() {
  const params = new URLSearchParams(location.search);
  const s = defaultState();
  if (params.get("set")) s.set = params.get("set");
  const h = parseInt(params.get("humans"), 10);
  if (CONFIG.humans.includes(h)) s.humans = h;
  if (CONFIG.levels.includes(params.get("difficulty"))) s.difficulty = params.get("difficulty");
  const g = parseInt(params.get("games"), 10);
  if (g > 0) s.games = g;
  const seed = parseInt(params.get("seed"), 10);
  if (seed > 0) s.seed = seed;
  return s;
}

function queryString(s) {
  const parts = [];
  if (s.set) parts.push(["set", s.set]);
  parts.push(["humans", s.humans], ["difficulty", s.difficulty], ["games", s.games]);
  if (s.seed) parts.push(["seed", s.seed]);
  return parts
    .map(([k, v]) => k + "=" + encodeURIComponent(String(v)).replace(/%2E/g, ".").replace(/%3D/g, "="))
    .join("&");
}

function splitSet(text) {
  if (!text) return [null, null];
  const i = text.indexOf("=");
  return i < 0 ? [text, ""] : [text.slice(0, i), text.slice(i + 1)];
}

window.addEventListener("popstate", () => {
  state = readUrl();
  hideError();
  renderForm();
  runFromState();
});

function showError(text) {
  const box = document.getElementById("error");
  box.textContent = text;
  box.hidden = false;
}

function hideError() {
  document.getElementById("error").hidden = true;
}

// ---- labels: what produced a figure ----

function renderLabels(labels, extra) {
  const share = labels.assumed_share == null ? "" : " (" + Math.round(100 * labels.assumed_share) + "% of its values assumed)";
  const bits = [
    "mode " + labels.mode,
    "human strategies " + labels.strategies,
    "Old One player " + labels.oop,
    "ruleset " + labels.ruleset,
    "content " + labels.content,
    labels.unknown && labels.unknown !== "blank" ? "unknown cards " + labels.unknown : null,
    "data " + labels.data + share,
    "engine " + labels.engine_version,
  ].filter(Boolean);
  const readings = Object.entries(labels.readings || {}).map(([k, v]) => k + "=" + v);
  const over = Object.entries(labels.overrides || {}).map(([k, v]) => k + "=" + v);
  return el(
    "div",
    { class: "labels" },
    el("p", { class: "note" }, "Played by: " + bits.join("; ") + (over.length ? "; overrides " + over.join(", ") : "") + "." + (extra ? " " + extra : "")),
    el(
      "details",
      { class: "readings" },
      el("summary", {}, "Readings of open rules (" + readings.length + ")"),
      el("p", { class: "note mono" }, readings.join(", ") || "none"),
    ),
  );
}

// ---- the balance table ----

async function loadTable() {
  const box = document.getElementById("table");
  try {
    const response = await fetch("/api/table", { credentials: "same-origin" });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error || "the server answered " + response.status);
    table = answer;
  } catch (e) {
    box.replaceChildren(el("p", { class: "error" }, String(e.message || e)));
    return;
  }
  box.replaceChildren(renderTable(table));
}

function renderTable(t) {
  const hk = t.humans_key;
  const groupName = (g) => (hk ? g + (g === 1 ? " human" : " humans") : "all cells");
  const rates = el(
    "table",
    { class: "balance", id: "balance-rates" },
    el("caption", {}, t.metric_text + " (Wilson 95% interval)"),
    el("thead", {}, el("tr", {}, el("th", { class: "l" }, hk || ""), t.levels.map((lv) => el("th", {}, level(lv))))),
    el(
      "tbody",
      {},
      t.rows.map((row) =>
        el(
          "tr",
          {},
          el("th", { class: "l" }, groupName(row.group)),
          t.levels.map((lv) => {
            const c = row.cells.find((x) => x.difficulty === lv);
            if (!c) return el("td", {}, "\u2013");
            const pick = hk && CONFIG.humans.includes(row.group) && CONFIG.levels.includes(lv);
            return el(
              "td",
              {
                class: pick ? "pick" : "",
                title: c.games.toLocaleString("en") + " games" + (pick ? "; tap to run the what-if here" : ""),
                "data-humans": row.group,
                "data-difficulty": lv,
                onclick: pick
                  ? () => {
                      readForm();
                      state.humans = row.group;
                      state.difficulty = lv;
                      renderForm();
                    }
                  : null,
              },
              pct(c.rate),
              el("small", {}, FMT.pctBounds(c.ci_low, c.ci_high)),
            );
          }),
        ),
      ),
    ),
  );
  const pairs = t.levels.slice(1).map((b, i) => [t.levels[i], b]);
  const steps = el(
    "table",
    { class: "balance", id: "balance-steps" },
    el("caption", {}, "Each step, paired on shared seeds (points, 95% interval)"),
    el("thead", {}, el("tr", {}, el("th", { class: "l" }, hk || ""), pairs.map(([a, b]) => el("th", {}, level(a) + " \u2192 " + level(b))))),
    el(
      "tbody",
      {},
      t.rows.map((row) =>
        el(
          "tr",
          {},
          el("th", { class: "l" }, groupName(row.group)),
          pairs.map(([a, b]) => {
            const s = row.steps.find((x) => x.from === a && x.to === b);
            if (!s) return el("td", {}, "\u2013");
            const cls = s.ci_low > 0 ? "up" : s.ci_high < 0 ? "down" : "flat";
            return el(
              "td",
              { class: cls, title: s.games.toLocaleString("en") + " paired games" },
              pts(s.diff),
              el("small", {}, FMT.pointsBounds(s.ci_low, s.ci_high)),
            );
          }),
        ),
      ),
    ),
  );
  const pooled = t.pooled && t.pooled.length ? " " + t.pooled.join(", ") + " held equal within each pair, then pooled." : "";
  return el(
    "div",
    {},
    el("p", { class: "note source", "data-source": t.source }, "From " + t.source_text + "." + pooled),
    el("div", { class: "tables" }, rates, steps),
    renderLabels(t.labels, "A step is higher difficulty minus lower, on the same deals, dice and decks."),
  );
}

// ---- the what-if form ----

function readForm() {
  const path = document.getElementById("path");
  if (!path) return;
  const value = document.getElementById("value");
  state.set = path.value ? path.value + "=" + value.value.trim() : null;
  state.humans = parseInt(document.getElementById("humans").value, 10);
  state.difficulty = document.getElementById("difficulty").value;
  state.games = parseInt(document.getElementById("games").value, 10) || CONFIG.games.default;
}

function valueControl(entry, value) {
  if (entry && entry.choices) {
    const chosen = value !== null && value !== undefined ? value : entry.choices.find((c) => c !== entry.value) || entry.value;
    return el(
      "select",
      { id: "value", "aria-label": "new value" },
      entry.choices.map((c) => el("option", { value: c, selected: c === chosen }, c + (c === entry.value ? " (now)" : ""))),
    );
  }
  return el("input", {
    id: "value",
    type: "text",
    inputmode: entry && entry.kind === "number" ? "decimal" : entry && entry.kind === "text" ? "text" : "numeric",
    "aria-label": "new value",
    value: value !== null && value !== undefined ? value : entry ? entry.value : "",
    size: entry && entry.kind === "text" ? 22 : 8,
    autocomplete: "off",
  });
}

function renderForm() {
  const [path, value] = splitSet(state.set);
  const entry = PATHS.get(path) || null;
  const groups = new Map();
  for (const p of CONFIG.paths) {
    if (!groups.has(p.group)) groups.set(p.group, []);
    groups.get(p.group).push(p);
  }
  const pathSelect = el(
    "select",
    {
      id: "path",
      "aria-label": "value to change",
      onchange: (e) => {
        const p = PATHS.get(e.target.value);
        document.getElementById("value").replaceWith(valueControl(p, null));
        document.getElementById("now").textContent = p ? "now " + p.value : "";
      },
    },
    el("option", { value: "" }, "pick a value to change\u2026"),
    path && !entry ? el("option", { value: path, selected: true }, path) : null,
    [...groups.entries()].map(([g, list]) =>
      el("optgroup", { label: g }, list.map((p) => el("option", { value: p.path, selected: p.path === path }, p.label))),
    ),
  );
  const humans = el(
    "select",
    { id: "humans", "aria-label": "human players" },
    CONFIG.humans.map((h) => el("option", { value: h, selected: h === state.humans }, h + (h === 1 ? " human" : " humans"))),
  );
  const difficulty = el(
    "select",
    { id: "difficulty", "aria-label": "difficulty" },
    CONFIG.levels.map((lv) => el("option", { value: lv, selected: lv === state.difficulty }, level(lv))),
  );
  const games = el("input", {
    id: "games",
    type: "number",
    inputmode: "numeric",
    min: CONFIG.games.min,
    max: CONFIG.games.max,
    step: 100,
    value: state.games,
    "aria-label": "games per side",
  });
  const form = el(
    "form",
    {
      class: "whatif",
      id: "whatif-form",
      onsubmit: (e) => {
        e.preventDefault();
        readForm();
        if (!state.set) {
          showError("pick a value to change first");
          return;
        }
        const url = location.pathname + "?" + queryString(state);
        if (url !== location.pathname + location.search) history.pushState(null, "", url);
        hideError();
        runFromState();
      },
    },
    el("div", { class: "field wide" }, el("label", { for: "path" }, "Change"), pathSelect),
    el(
      "div",
      { class: "field" },
      el("label", { for: "value" }, "to ", el("span", { id: "now", class: "now" }, entry ? "now " + entry.value : "")),
      valueControl(entry, value),
    ),
    el("div", { class: "field" }, el("label", { for: "humans" }, "Players"), humans),
    el("div", { class: "field" }, el("label", { for: "difficulty" }, "Difficulty"), difficulty),
    el("div", { class: "field" }, el("label", { for: "games" }, "Games per side"), games),
    el("div", { class: "field go" }, el("button", { type: "submit", id: "run" }, "Run paired games")),
  );
  document.getElementById("form").replaceChildren(form);
}

// ---- the what-if's answer ----

async function runFromState() {
  const box = document.getElementById("result");
  if (!state.set) {
    box.replaceChildren(
      el("p", { class: "note" }, "Pick a value, a new value, players and difficulty, then run: both packs play the same games (same seeds), so the difference is the change's effect."),
    );
    return;
  }
  const key = queryString(state);
  box.dataset.q = key;
  box.replaceChildren(el("p", { class: "busy" }, "playing " + (2 * state.games).toLocaleString("en") + " games\u2026"));
  let answer, response;
  try {
    response = await fetch("/api/whatif?" + key, { credentials: "same-origin" });
    answer = await response.json();
  } catch (e) {
    answer = { error: String(e.message || e) };
  }
  if (!box.isConnected || box.dataset.q !== key) return;
  if (!response || !response.ok) {
    const text = answer.error || "the server answered " + (response ? response.status : "nothing");
    showError(text);
    box.replaceChildren(
      el(
        "div",
        { class: "failed", "data-status": response ? response.status : 0 },
        el("p", { class: "error" }, text),
        answer.command ? renderCommand(answer.command) : null,
      ),
    );
    return;
  }
  box.replaceChildren(renderResult(answer));
}

function renderResult(a) {
  const [lo, hi] = a.ci95;
  const verdict = {
    higher: "the change raises it",
    lower: "the change lowers it",
    "not distinguishable": "not distinguishable from no change at this many games",
  }[a.verdict];
  const where = a.humans + (a.humans === 1 ? " human, " : " humans, ") + level(a.difficulty);
  const head = el(
    "div",
    { class: "headline" },
    el("p", { class: "change" }, el("code", {}, a.change.path), " ", a.change.was, " \u2192 ", el("b", {}, a.change.value), " \u00b7 " + where),
    el(
      "p",
      { class: "rates" },
      el("span", { class: "lbl" }, a.metric_text + ": "),
      el("span", { "data-testid": "rate-a" }, pct(a.a)),
      " \u2192 ",
      el("span", { "data-testid": "rate-b" }, pct(a.b)),
    ),
    el(
      "p",
      { class: "diff " + (a.verdict === "higher" ? "up" : a.verdict === "lower" ? "down" : "flat") },
      el("span", { class: "pd", "data-testid": "difference" }, pts(a.difference)),
      " points ",
      el("span", { class: "ci", title: "95% interval of the difference, in points" }, FMT.pointsBounds(lo, hi)),
      ": " + verdict,
    ),
    el(
      "p",
      { class: "note" },
      a.games.toLocaleString("en") + " games per side on the same seeds (root seed " + a.seed + "), played in " + a.seconds.toFixed(1) + " s" + (a.cached ? " (cached)" : "") + ".",
    ),
  );
  const rows = a.metrics.map((m) =>
    el(
      "tr",
      {},
      el("th", { class: "l" }, m.name),
      el("td", {}, m.a.toFixed(3)),
      el("td", {}, m.b.toFixed(3)),
      el(
        "td",
        { title: "B \u2212 A " + FMT.interval(m.difference, m.ci_low, m.ci_high, 3, true) + " (95% interval)" },
        FMT.num(m.difference, 3, true),
        el("small", {}, FMT.bounds(m.ci_low, m.ci_high, 3, true)),
      ),
    ),
  );
  const metrics = el(
    "table",
    { class: "metrics" },
    el("caption", {}, "Every headline metric, mean per game (B \u2212 A paired, with its 95% interval)"),
    el("thead", {}, el("tr", {}, el("th", { class: "l" }, "metric"), el("th", {}, "A: pack"), el("th", { class: "b" }, "B: changed"), el("th", { class: "d" }, "B \u2212 A"))),
    el("tbody", {}, rows),
  );
  const command = el(
    "div",
    { class: "repro" },
    el("p", { class: "note" }, "The same games on the command line:"),
    renderCommand(a.command),
  );
  return el(
    "div",
    {},
    head,
    metrics,
    command,
    renderLabels(a.labels, "A: data " + a.labels.data + "; B: data " + a.labels.data_b + " (A with " + a.set + ")."),
  );
}

// ---- the page ----

function renderPage() {
  const main = document.getElementById("explore");
  main.replaceChildren(
    el(
      "section",
      { class: "panel", id: "balance" },
      el("h2", {}, "Balance table"),
      el("div", { id: "table" }, el("p", { class: "busy" }, "computing the table\u2026")),
    ),
    el(
      "section",
      { class: "panel", id: "whatif" },
      el("h2", {}, "What if\u2026"),
      el("div", { id: "form" }),
      el("div", { id: "result", class: "result" }),
    ),
  );
}

state = readUrl();
renderPage();
renderForm();
loadTable();
runFromState();
