// The digital tower at the table. The game is a log of steps (the keshis thrown in a round,
// one player's battle); everything shown is the log replayed with the tower model of the
// JavaScript port (tower-model.js) from the game's seed, so undo drops the last step, a
// reload replays the saved log and an exported log plays back the same anywhere. The Battle
// at the Wall's rules are battle.js. The recorder writes tower.recording/1 files. Classic
// scripts only, so the page works from file://.
/* global TowerModel, TowerBattle, TOWER_MODELS */
"use strict";

(function () {
  const { loadModel, Tower, PythonRandom, PLACES } = TowerModel;
  const { SECTIONS, WATCHMEN_PER_PLAYER, BRIGANDS_IN_BOX, battleThrow, resolveBattle } = TowerBattle;

  // The game's colours (tower/pieces.py): keshis in rulebook order, watchmen by seat.
  const KESHI = ["green", "gray", "white", "black", "pink", "turquoise", "beige", "brown",
    "red", "yellow", "purple", "orange"];
  const SEATS = ["red", "yellow", "green", "blue"];
  /** One-letter codes of `tower record` (k black, a gray, e beige, n brown, u purple). */
  const CODES = { g: "green", a: "gray", w: "white", k: "black", p: "pink", t: "turquoise",
    e: "beige", n: "brown", r: "red", y: "yellow", u: "purple", o: "orange" };
  const CSS = { green: "#3f9a3a", gray: "#8a8a8a", white: "#f4f4f0", black: "#222", pink: "#f2a0c0",
    turquoise: "#3cc0b8", beige: "#e2d2a8", brown: "#7b4a26", red: "#c8302c", yellow: "#f0c419",
    purple: "#7e4aa0", orange: "#ee8a22", blue: "#2e62b8", neutral: "#5a5048" };
  const PLACE_NAME = { funnel: "funnel", floor1: "upper floor", floor2: "lower floor", ramp: "ramp" };
  const PLACE_COLOUR = { funnel: "#c9a66b", floor1: "#8fae6b", floor2: "#5f8fa8", ramp: "#a0708f" };
  const NAMES = { keshi: ["keshi", "keshis"], expert: ["expert keshi", "expert keshis"],
    watchman: ["watchman", "watchmen"], brigand: ["brigand", "brigands"], cube: ["cube", "cubes"],
    piece: ["piece", "pieces"], throw: ["throw", "throws"], step: ["step", "steps"], attacker: ["attacker", "attackers"] };
  const EXPERT = "expert:neutral"; // the engine's expert keshis (data/experts.toml)
  const BRIGAND = "brigand:neutral";
  const ROUNDS = 4;
  const SEASONS = 3;
  const MAX_EXPERTS = 5;
  const LOG_FORMAT = "tower.web-game/1";
  const STORE = { game: "tower.web.game/1", recorder: "tower.web.recorder/1", model: "tower.web.model/1",
    entry: "tower.web.entry/1" };
  /** Seasons simulated for the expected battle outcomes, and their fixed seed. */
  const BATTLE_SAMPLES = 2000;
  const BATTLE_SEED = 20260;
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);

  // ---------------------------------------------------------------- pieces in words
  const kindOf = (p) => p.slice(0, p.indexOf(":"));
  const colourOf = (p) => p.slice(p.indexOf(":") + 1);
  /** Python's order of pieces (kind, then colour): the order thrown into the model. */
  const pyOrder = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  /** The order of the base: keshis by colour as in the rulebook, then experts and pawns. */
  const KIND_RANK = { keshi: 0, expert: 1, watchman: 2, brigand: 3 };
  function baseRank(p) {
    const kind = kindOf(p);
    const c = colourOf(p);
    const ci = kind === "watchman" ? SEATS.indexOf(c) : KESHI.indexOf(c);
    return [KIND_RANK[kind] ?? 9, ci < 0 ? 99 : ci];
  }
  function baseOrder(a, b) {
    const [ka, ca] = baseRank(a);
    const [kb, cb] = baseRank(b);
    return ka - kb || ca - cb || pyOrder(a, b);
  }
  function plural(kind, n) {
    return (NAMES[kind] || [kind, kind])[n === 1 ? 0 : 1];
  }
  /** "2 green keshis, 1 red watchman" in the order of the base. */
  function describe(pieces) {
    const groups = new Map();
    for (const p of [...pieces].sort(baseOrder)) groups.set(p, (groups.get(p) || 0) + 1);
    const words = [...groups].map(([p, n]) => {
      const kind = kindOf(p);
      const colour = colourOf(p) === "neutral" ? "" : `${colourOf(p)} `;
      return `${n} ${colour}${plural(kind, n)}`;
    });
    return words.join(", ") || "nothing";
  }
  function countWord(n, kind) {
    return `${n} ${plural(kind, n)}`;
  }
  function fill(piece) {
    return CSS[colourOf(piece)] || "#999";
  }
  function chip(piece, n) {
    const span = document.createElement("span");
    span.className = `chip ${kindOf(piece)}`;
    span.dataset.piece = piece;
    span.dataset.count = n;
    const kind = kindOf(piece);
    const name = colourOf(piece) === "neutral" ? plural(kind, n) : `${colourOf(piece)} ${plural(kind, n)}`;
    span.innerHTML = `<span class="dot" style="background:${fill(piece)}"></span>${n} ${name}`;
    return span;
  }
  /** Chips of a multiset of pieces, one per kind and colour, in the order of the base. */
  function chips(pieces) {
    const groups = new Map();
    for (const p of [...pieces].sort(baseOrder)) groups.set(p, (groups.get(p) || 0) + 1);
    return [...groups].map(([p, n]) => chip(p, n));
  }

  // ---------------------------------------------------------------- the model
  const app = { model: null, modelSource: "", game: null, view: null, entry: {}, experts: 0,
    expect: 12, battleForm: null, expectCache: new Map(), recorder: null, recEntry: {} };

  /** What the model is, in a player's words. */
  function modelWords(model, source) {
    const spec = (model.doc.tower && model.doc.tower.spec) || "";
    const m = /^description = "([^"]*)"/m.exec(spec);
    const tower = m ? m[1] : (model.doc.tower && model.doc.tower.preset) || "a tower the file does not describe";
    const prov = model.doc.provenance || {};
    const throws = prov.counts && prov.counts.throws;
    const made = throws ? `, learnt from ${throws.toLocaleString("en")} simulated throws` : "";
    // `tower distill --params FILE` (a calibration's params.json) says "--params FILE"
    const calibrated = String(prov.params_from || "").startsWith("--params") ? ", with the settings of a calibrated tower" : "";
    return `Tower: “${model.name}”, ${tower}${made}${calibrated}. ` +
      `Its checksum holds: the file is exactly as it was made (${source}).`;
  }

  function showModelFacts(model, source) {
    const facts = [["file", source], ["format", model.schema], ["checksum (sha256)", model.sha256],
      ["piece classes", Object.entries(model.classes).map(([k, c]) => `${k} → ${c}`).join(", ")]];
    const prov = model.doc.provenance || {};
    if (prov.command) facts.push(["made by", prov.command]);
    if (prov.params_from) facts.push(["settings from", String(prov.params_from)]);
    $("model-facts").replaceChildren(...facts.flatMap(([k, v]) => {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.textContent = v;
      return [dt, dd];
    }));
  }

  /** Use a model file's text; a bad file leaves everything as it was and says why. */
  function useModel(text, source, { remember = false } = {}) {
    let model;
    try {
      model = loadModel(text, source);
    } catch (exc) {
      showError(`This file is not a tower model the page can use: ${exc.message}`);
      return false;
    }
    app.model = model;
    app.modelSource = source;
    app.expectCache.clear();
    $("model-info").textContent = modelWords(model, source);
    showModelFacts(model, source);
    if (remember) {
      try {
        localStorage.setItem(STORE.model, JSON.stringify({ source, text }));
      } catch {
        showError("The tower model works but is too large to keep in this browser: open it again after a reload.");
      }
    }
    return true;
  }

  function showError(text) {
    $("error").textContent = text;
    $("error").hidden = !text;
  }

  // ---------------------------------------------------------------- the game log, replayed
  function newGameLog({ players = 4, walls = true, experts = true, seed = 1 } = {}) {
    return { format: LOG_FORMAT, seed, players, modules: { walls, experts }, steps: [] };
  }

  /** Check an imported or stored log's header; one sentence on what is wrong. */
  function checkLog(log) {
    if (!log || log.format !== LOG_FORMAT) return `it is not a game log of this page (format ${LOG_FORMAT})`;
    if (![2, 3, 4].includes(log.players)) return `it has ${log.players} players; the game has 2 to 4`;
    if (!Number.isInteger(log.seed) || log.seed < 0) return `its seed ${log.seed} is not a whole number 0 or more`;
    if (!log.modules || !Array.isArray(log.steps)) return "it has no modules or no steps";
    return "";
  }

  /**
   * Replay `log` with `model`: the tower, the counters and what each step did.
   * Throws an Error naming the step when a step is not legal where it stands.
   */
  function replay(log, model) {
    const tower = new Tower(model, { seed: log.seed });
    const seats = SEATS.slice(0, log.players);
    const v = { tower, seats, season: 1, round: 1, phase: "round", rows: [], last: null, carry: [],
      battles: [], order: [], base: null, totalIn: 0, totalOut: 0 };
    const record = (label, thrown, out, extra = {}) => {
      v.totalIn += thrown.length;
      v.totalOut += out.length;
      const byPlace = Object.fromEntries(PLACES.map((p) => [p, 0]));
      for (const r of tower.residents) byPlace[r.place] += 1;
      v.rows.push({ label, in: thrown.length, out: out.length, inside: tower.residents.length, byPlace });
      v.last = { label, thrown, out, ...extra };
    };
    const endSeason = () => {
      v.season += 1;
      v.round = 1;
      v.phase = v.season > SEASONS ? "over" : "round";
      v.battles = [];
      v.order = [];
      v.base = null;
    };
    log.steps.forEach((step, i) => {
      const where = `step ${i + 1}`;
      if (step.t === "round") {
        if (v.phase !== "round") throw new Error(`${where} throws a round, but ${v.phase === "over" ? "the game is over" : "the Battle at the Wall is due"}`);
        for (const p of step.pieces) model.pieceClass(p);
        const experts = step.pieces.filter((p) => p === EXPERT).length;
        const free = expertsFree(tower, v.carry);
        if (experts > free) throw new Error(`${where} throws ${countWord(experts, "expert")}, but only ${free} are not in the tower or its base`);
        const thrown = [...v.carry, ...step.pieces].sort(pyOrder);
        const out = tower.throw(thrown);
        record(`season ${v.season}, round ${v.round}`, thrown, out, { carried: v.carry });
        v.carry = [];
        v.round += 1;
        if (v.round > ROUNDS) {
          if (log.modules.walls) v.phase = "battle";
          else endSeason();
        }
      } else if (step.t === "battle") {
        if (v.phase !== "battle") throw new Error(`${where} is a battle, but no Battle at the Wall is due`);
        const first = v.battles.length === 0;
        if (first) {
          if (!seats.includes(step.player)) throw new Error(`${where}: ${step.player} is not a player`);
          const at = seats.indexOf(step.player);
          v.order = [...seats.slice(at), ...seats.slice(0, at)];
        }
        const player = v.order[v.battles.length];
        if (step.player !== player) throw new Error(`${where}: it is ${player}'s battle, not ${step.player}'s`);
        const free = hireable(tower, player);
        if (!(Number.isInteger(step.hired) && step.hired >= 0 && step.hired <= free)) {
          throw new Error(`${where}: ${player} can hire 0 to ${free} watchmen, not ${step.hired}`);
        }
        const thrown = battleThrow(v.season, player, step.hired, first ? null : v.base, brigandsBy(tower)).sort(pyOrder);
        const out = tower.throw(thrown);
        const outcome = resolveBattle(player, out, step.repaired);
        v.battles.push({ player, hired: step.hired, repaired: step.repaired, thrown, out, outcome });
        v.base = out;
        record(`season ${v.season}, ${player}'s battle`, thrown, out, { battle: outcome });
        if (v.battles.length === seats.length) {
          // After all battles: keshis in the base go into next season's first throw.
          v.carry = out.filter((p) => kindOf(p) === "keshi" || kindOf(p) === "expert");
          v.lastBattles = v.battles;
          endSeason();
        }
      } else {
        throw new Error(`${where} is of an unknown kind ${JSON.stringify(step.t)}`);
      }
    });
    return v;
  }

  /** Watchmen of `player` not stuck in the tower (they can be hired). */
  function hireable(tower, player) {
    const stuck = tower.residents.filter((r) => r.piece === `watchman:${player}`).length;
    return Math.max(WATCHMEN_PER_PLAYER - stuck, 0);
  }
  /** Expert keshis on the expert board: not stuck in the tower, not carried from a battle. */
  function expertsFree(tower, carry) {
    const away = tower.residents.filter((r) => r.piece === EXPERT).length + carry.filter((p) => p === EXPERT).length;
    return Math.max(MAX_EXPERTS - away, 0);
  }
  /** Brigands standing by the tower (a brigand stuck inside cannot be taken). */
  function brigandsBy(tower) {
    return BRIGANDS_IN_BOX - tower.residents.filter((r) => r.piece === BRIGAND).length;
  }

  /** Apply `step` if legal; an illegal step changes nothing and says why. */
  function play(step) {
    const log = { ...app.game, steps: [...app.game.steps, step] };
    let view;
    try {
      view = replay(log, app.model);
    } catch (exc) {
      showError(`That cannot be played: ${exc.message}.`);
      return false;
    }
    showError("");
    app.game = log;
    app.view = view;
    save();
    return true;
  }

  function save() {
    try {
      localStorage.setItem(STORE.game, JSON.stringify({ ...app.game,
        model: { name: app.model.name, sha256: app.model.sha256 } }));
    } catch {
      showError("This browser does not keep the game: export the log to keep it.");
    }
  }

  /** The entry in progress (keshis tapped, battle settings), kept with the game's step count. */
  function saveEntry() {
    try {
      localStorage.setItem(STORE.entry, JSON.stringify({ steps: app.game.steps.length, entry: app.entry,
        experts: app.experts, expect: app.expect, battleForm: app.battleForm }));
    } catch { /* the entry is retyped in seconds */ }
  }

  function restoreEntry(kept) {
    if (!kept || kept.steps !== app.game.steps.length) return;
    app.entry = Object.fromEntries(Object.entries(kept.entry || {}).filter(([p, n]) =>
      Number.isInteger(n) && n > 0 && (KESHI.includes(colourOf(p)) || SEATS.includes(colourOf(p)) || p === BRIGAND)));
    app.experts = Number.isInteger(kept.experts) ? kept.experts : 0;
    app.expect = [6, 9, 12].includes(kept.expect) ? kept.expect : app.expect;
    const f = kept.battleForm;
    if (f && f.season === app.view.season && app.view.seats.includes(f.first) &&
        app.view.seats.every((p) => f.players[p] && Number.isInteger(f.players[p].hired) && Number.isInteger(f.players[p].repaired))) {
      app.battleForm = f;
    }
  }

  function startGame(log) {
    app.game = log;
    app.view = replay(log, app.model);
    app.entry = {};
    app.experts = 0;
    app.expect = 3 * log.players;
    app.battleForm = null;
    save();
    render();
  }

  // ---------------------------------------------------------------- the battle's expectations
  /**
   * Expected points and breaches of each player still to fight this season, from `state`:
   * BATTLE_SAMPLES simulated seasons of the model (its own random stream, not the game's).
   */
  function expectBattles(state, season, order, done, base, form) {
    const key = JSON.stringify([app.model.sha256, state, season, order, done, base, form]);
    if (app.expectCache.has(key)) return app.expectCache.get(key);
    const rng = new PythonRandom(BATTLE_SEED);
    const sim = new Tower(app.model, { random: rng });
    const players = order.slice(done);
    const sums = players.map(() => ({ points: 0, points2: 0, breaches: 0, breaches2: 0, law: new Array(SECTIONS + 1).fill(0) }));
    for (let s = 0; s < BATTLE_SAMPLES; s++) {
      sim.setState(state);
      let b = base;
      players.forEach((player, j) => {
        const thrown = battleThrow(season, player, form[player].hired, b, brigandsBy(sim)).sort(pyOrder);
        const out = sim.throw(thrown);
        const o = resolveBattle(player, out, form[player].repaired);
        const t = sums[j];
        t.points += o.points;
        t.points2 += o.points * o.points;
        t.breaches += o.breaches.length;
        t.breaches2 += o.breaches.length ** 2;
        t.law[o.breaches.length] += 1;
        b = out;
      });
    }
    const n = BATTLE_SAMPLES;
    const se = (s, s2) => Math.sqrt(Math.max(s2 / n - (s / n) ** 2, 0) / (n - 1));
    const result = Object.fromEntries(players.map((p, j) => {
      const t = sums[j];
      return [p, { points: t.points / n, pointsSe: se(t.points, t.points2), breaches: t.breaches / n,
        breachesSe: se(t.breaches, t.breaches2), law: t.law.map((c) => c / n) }];
    }));
    app.expectCache.set(key, result);
    return result;
  }

  // ---------------------------------------------------------------- drawing
  function svgEl(tag, attrs = {}, parent = null) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, val] of Object.entries(attrs)) if (val !== null) node.setAttribute(k, val);
    if (parent) parent.appendChild(node);
    return node;
  }
  function svgText(parent, x, y, text, attrs = {}) {
    const t = svgEl("text", { x, y, "font-size": 8, ...attrs }, parent);
    t.textContent = text;
    return t;
  }

  function drawPiece(svg, piece, x, y, place) {
    const kind = kindOf(piece);
    const g = svgEl("g", { class: "piece", "data-piece": piece, "data-place": place, transform: `translate(${x},${y})` }, svg);
    if (kind === "watchman" || kind === "brigand") {
      svgEl("path", { d: "M-4 5 L-1.6 -1 L1.6 -1 L4 5 Z", fill: fill(piece), stroke: "#0008", "stroke-width": 0.6 }, g);
      svgEl("circle", { cx: 0, cy: -3, r: 2.4, fill: fill(piece), stroke: "#0008", "stroke-width": 0.6 }, g);
    } else {
      const r = kind === "expert" ? 5.2 : 4.4;
      const pts = Array.from({ length: 8 }, (_, i) => {
        const a = Math.PI / 8 + (i * Math.PI) / 4;
        return `${(r * Math.cos(a)).toFixed(2)},${(r * Math.sin(a)).toFixed(2)}`;
      }).join(" ");
      svgEl("polygon", { points: pts, fill: kind === "expert" ? "#f7e7a1" : fill(piece),
        stroke: kind === "expert" ? "#b8860b" : "#0008", "stroke-width": kind === "expert" ? 1.6 : 0.6 }, g);
    }
    svgEl("title", {}, g).textContent = `${describe([piece])}, ${PLACE_NAME[place] || place}`;
  }

  const ZONES = { funnel: [72, 168, 62], floor1: [62, 178, 138], floor2: [62, 178, 208], ramp: [62, 178, 262] };

  function drawTower(lastOut) {
    const svg = $("tower");
    svg.replaceChildren();
    const wall = { fill: "#d9c7a3", stroke: "#8a7350", "stroke-width": 1 };
    svgEl("polygon", { points: "30,8 210,8 178,70 62,70", fill: "#efe2c6", stroke: "#8a7350" }, svg);
    svgEl("rect", { x: 52, y: 70, width: 8, height: 215, ...wall }, svg);
    svgEl("rect", { x: 180, y: 70, width: 8, height: 185, ...wall }, svg);
    for (const [y, holes] of [[140, [[80, 98], [140, 158]]], [210, [[66, 84], [112, 130], [160, 176]]]]) {
      let x = 60;
      for (const [a, b] of holes) {
        svgEl("rect", { x, y, width: a - x, height: 5, ...wall }, svg);
        x = b;
      }
      svgEl("rect", { x, y, width: 180 - x, height: 5, ...wall }, svg);
    }
    svgEl("polygon", { points: "60,262 180,282 180,287 60,267", ...wall }, svg);
    svgEl("polygon", { points: "188,255 236,255 236,318 40,318 40,290 188,290", fill: "#f3ead8", stroke: "#8a7350" }, svg);
    for (const [place, [x0, , y]] of Object.entries(ZONES)) {
      svgText(svg, 4, y - 2, PLACE_NAME[place], { fill: PLACE_COLOUR[place], "font-size": 7 });
    }
    svgText(svg, 196, 312, "base", { fill: "#8a7350" });
    const byPlace = Object.fromEntries(PLACES.map((p) => [p, []]));
    for (const r of app.view.tower.residents) byPlace[r.place].push(r.piece);
    for (const [place, pieces] of Object.entries(byPlace)) {
      const [x0, x1, yb] = ZONES[place];
      const perRow = Math.floor((x1 - x0) / 11);
      pieces.forEach((p, i) => {
        const x = x0 + 6 + (i % perRow) * 11;
        const y = yb - 6 - Math.floor(i / perRow) * 11 + (place === "ramp" ? ((x - 60) / 120) * 20 : 0);
        drawPiece(svg, p, x, y, place);
      });
    }
    [...lastOut].sort(baseOrder).forEach((p, i) => drawPiece(svg, p, 50 + (i % 16) * 11, 300 - Math.floor(i / 16) * 9, "out"));
  }

  /** Axes with titles: x from 30 to 314, y from 150 (0) up to 20. */
  function axes(svg, xTitle, yTitle, yMax, yFormat) {
    svgEl("line", { x1: 30, y1: 150, x2: 314, y2: 150, stroke: "#0008" }, svg);
    svgEl("line", { x1: 30, y1: 150, x2: 30, y2: 20, stroke: "#0008" }, svg);
    for (const f of [0, 0.5, 1]) {
      const y = 150 - f * 130;
      svgEl("line", { x1: 27, y1: y, x2: 30, y2: y, stroke: "#0008" }, svg);
      svgText(svg, 25, y + 3, yFormat(f * yMax), { "text-anchor": "end", "font-size": 9 });
    }
    svgText(svg, 172, 184, xTitle, { "text-anchor": "middle", class: "axis-title" });
    svgText(svg, 6, 12, yTitle, { class: "axis-title" });
  }

  function nextPieces() {
    const v = app.view;
    if (v.phase === "round") return [...v.carry, ...entryPieces()].sort(pyOrder);
    if (v.phase === "battle") {
      const b = nextBattle();
      return b ? b.thrown : [];
    }
    return [];
  }

  function drawLaw() {
    const svg = $("law");
    svg.replaceChildren();
    const pieces = nextPieces();
    let law;
    try {
      law = app.view.tower.countLaw(pieces);
    } catch (exc) { // a model with a copula has no exact law of the throws it couples
      $("law-caption").textContent = `No exact law of this throw: ${exc.message}.`;
      return;
    }
    const last = Math.max(...law.map((p, k) => (p > 5e-4 ? k : 0)), 1);
    const top = Math.max(...law.slice(0, last + 1));
    const yMax = Math.min(1, Math.ceil(top * 10) / 10 || 0.1);
    axes(svg, "pieces coming out (count)", "chance (%)", yMax, (x) => `${Math.round(x * 100)}`);
    const w = 284 / (last + 1);
    law.forEach((p, k) => {
      const h = k <= last ? (p / yMax) * 130 : 0;
      const x = 30 + k * w;
      svgEl("rect", { class: "bar", "data-k": k, "data-p": p, x: x + 0.5, y: 150 - h, width: Math.max(w - 1, 0.5),
        height: h, fill: "#b5542c", display: k <= last ? null : "none" }, svg);
      if (k <= last && (last < 20 || k % 2 === 0)) svgText(svg, x + w / 2, 162, k, { "text-anchor": "middle", "font-size": 9 });
    });
    const mean = law.reduce((a, p, k) => a + p * k, 0);
    $("law-caption").textContent = pieces.length
      ? `Throwing ${describe(pieces)} now, with ${countWord(app.view.tower.residents.length, "piece")} inside: on average ${mean.toFixed(1)} come out.`
      : `Nothing entered yet: with nothing thrown, ${mean.toFixed(1)} pieces come out on average.`;
  }

  function drawHistory() {
    const svg = $("history");
    svg.replaceChildren();
    const rows = app.view.rows;
    const top = Math.max(10, ...rows.map((r) => r.inside));
    axes(svg, "throw (number)", "pieces inside (count)", top, (x) => `${Math.round(x)}`);
    const w = 284 / Math.max(rows.length, 12);
    rows.forEach((r, i) => {
      let y = 150;
      for (const place of PLACES) {
        const h = (r.byPlace[place] / top) * 130;
        y -= h;
        svgEl("rect", { x: 30 + i * w + 0.5, y, width: Math.max(w - 1, 0.5), height: h, fill: PLACE_COLOUR[place] }, svg);
      }
      if (rows.length <= 24 || i % 2 === 0) svgText(svg, 30 + i * w + w / 2, 162, i + 1, { "text-anchor": "middle", "font-size": 9 });
    });
    $("history-legend").innerHTML = PLACES.map((p) => `<span style="--c:${PLACE_COLOUR[p]}">${PLACE_NAME[p]}</span>`).join("");
    $("history-table").tBodies[0].replaceChildren(...rows.map((r, i) => {
      const tr = document.createElement("tr");
      for (const val of [i + 1, r.label, r.in, r.out, r.inside]) tr.appendChild(document.createElement("td")).textContent = val;
      return tr;
    }));
  }

  // ---------------------------------------------------------------- entry of a round
  function entryPieces() {
    const pieces = [];
    for (const [p, n] of Object.entries(app.entry)) for (let i = 0; i < n; i++) pieces.push(p);
    if (app.game.modules.experts) for (let i = 0; i < app.experts; i++) pieces.push(EXPERT);
    return pieces;
  }

  function tapButton(piece, onChange) {
    const b = document.createElement("button");
    b.className = `tap ${kindOf(piece)}`;
    b.dataset.piece = piece;
    const label = kindOf(piece) === "brigand" ? "brigand" : colourOf(piece);
    b.innerHTML = `<span class="dot" style="background:${fill(piece)}"></span><span class="name">${label}</span><span class="count"></span>`;
    b.addEventListener("click", () => onChange(piece, +1));
    const minus = document.createElement("button");
    minus.className = "minus secondary";
    minus.dataset.minus = piece;
    minus.setAttribute("aria-label", `one ${label} less`);
    minus.textContent = "−";
    minus.addEventListener("click", () => onChange(piece, -1));
    const cell = document.createElement("div");
    cell.className = "cell";
    cell.append(b, minus);
    return cell;
  }

  function changeEntry(piece, delta) {
    app.entry[piece] = Math.max((app.entry[piece] || 0) + delta, 0);
    if (!app.entry[piece]) delete app.entry[piece];
    renderEntry();
    drawLaw();
  }

  /** Counts in the notation of `tower record`: "r3 g2 y", "red=2", "brigand". */
  function parseTyped(text) {
    const counts = {};
    for (const token of text.trim().toLowerCase().split(/[\s,;]+/)) {
      if (!token) continue;
      const m = /^([a-z]+)=?(\d*)$/.exec(token);
      if (!m) return { error: `cannot read “${token}”; write e.g. r3 or red=3` };
      const [, name, num] = m;
      let piece;
      if (name in CODES) piece = `keshi:${CODES[name]}`;
      else if (name === "brigand") piece = BRIGAND;
      else {
        const hits = KESHI.filter((c) => c.startsWith(name));
        if (hits.length !== 1 || name.length < 2) return { error: `“${token}” is not a keshi colour` };
        piece = `keshi:${hits[0]}`;
      }
      counts[piece] = (counts[piece] || 0) + (num ? Number(num) : 1);
    }
    return { counts };
  }

  function renderEntry() {
    for (const cell of document.querySelectorAll("#keshi-grid .cell, #pawn-grid .cell")) {
      const piece = cell.firstChild.dataset.piece;
      const n = app.entry[piece] || 0;
      cell.querySelector(".count").textContent = n ? `×${n}` : "";
      cell.classList.toggle("on", n > 0);
    }
    const free = expertsFree(app.view.tower, app.view.carry);
    app.experts = Math.min(app.experts, free);
    document.querySelectorAll("#expert-buttons button").forEach((b) => {
      b.setAttribute("aria-pressed", String(Number(b.dataset.experts) === app.experts));
      b.disabled = Number(b.dataset.experts) > free;
    });
    $("experts-away").textContent = free < MAX_EXPERTS ? `(${MAX_EXPERTS - free} of ${MAX_EXPERTS} expert keshis are in the tower or its base)` : "";
    document.querySelectorAll("button[data-expect]").forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.expect) === app.expect)));
    const pieces = entryPieces();
    const keshis = pieces.filter((p) => kindOf(p) === "keshi").length;
    const carried = app.view.carry.length ? ` Also going in from the battle: ${describe(app.view.carry)}.` : "";
    $("entry-summary").textContent = `${keshis} of ${app.expect} keshis entered` +
      (pieces.length > keshis ? `, with ${describe(pieces.filter((p) => kindOf(p) !== "keshi"))}.` : ".") + carried;
    const total = pieces.length + app.view.carry.length;
    $("throw").textContent = total ? `Throw ${countWord(total, "piece")}` : "Throw";
    $("throw").disabled = total === 0;
    saveEntry();
  }

  // ---------------------------------------------------------------- the battle form
  function battleForm() {
    const v = app.view;
    if (!app.battleForm || app.battleForm.season !== v.season) {
      app.battleForm = { season: v.season, first: v.seats[0],
        players: Object.fromEntries(v.seats.map((p) => [p, { hired: 0, repaired: 0 }])) };
    }
    return app.battleForm;
  }

  function battleOrder() {
    const v = app.view;
    if (v.order.length) return v.order;
    const at = v.seats.indexOf(battleForm().first);
    return [...v.seats.slice(at), ...v.seats.slice(0, at)];
  }

  /** The next battle: its player, hired watchmen, wall and the pieces thrown. */
  function nextBattle() {
    const v = app.view;
    if (v.phase !== "battle") return null;
    const order = battleOrder();
    const player = order[v.battles.length];
    const f = battleForm().players[player];
    const hired = Math.min(f.hired, hireable(v.tower, player));
    const first = v.battles.length === 0;
    const thrown = battleThrow(v.season, player, hired, first ? null : v.base, brigandsBy(v.tower)).sort(pyOrder);
    return { player, hired, repaired: f.repaired, thrown, first };
  }

  function stepper(value, max, onSet, testid) {
    const sel = document.createElement("select");
    sel.dataset.testid = testid;
    for (let k = 0; k <= max; k++) sel.appendChild(new Option(String(k), String(k), false, k === value));
    sel.addEventListener("change", () => onSet(Number(sel.value)));
    return sel;
  }

  function renderBattle() {
    const v = app.view;
    const form = battleForm();
    const order = battleOrder();
    const done = v.battles.length;
    const next = nextBattle();
    $("battle-intro").textContent = `End of season ${v.season}: each player fights at their wall in turn. ` +
      `The first throws their hired watchmen and ${countWord(Math.min(v.season, brigandsBy(v.tower)), "brigand")}; ` +
      "each next player throws everything that fell out so far with their own hired watchmen.";
    const first = $("battle-first");
    first.replaceChildren(...v.seats.map((p) => new Option(p, p, false, p === form.first)));
    first.disabled = done > 0;
    const form2 = Object.fromEntries(order.map((p) => [p, { hired: Math.min(form.players[p].hired, hireable(v.tower, p)), repaired: form.players[p].repaired }]));
    const expected = expectBattles(v.tower.getState(), v.season, order, done, done ? v.base : null, form2);
    $("battle-rows").replaceChildren(...order.map((p, i) => {
      const tr = document.createElement("tr");
      tr.dataset.player = p;
      const name = tr.appendChild(document.createElement("td"));
      name.innerHTML = `<span class="dot" style="background:${CSS[p]}"></span>${p}`;
      const fought = v.battles[i];
      const cellHired = tr.appendChild(document.createElement("td"));
      const cellWall = tr.appendChild(document.createElement("td"));
      if (fought) {
        cellHired.textContent = fought.hired;
        cellWall.textContent = `${fought.repaired} of ${SECTIONS}`;
        const o = fought.outcome;
        tr.appendChild(document.createElement("td")).textContent = `${o.points} scored`;
        tr.appendChild(document.createElement("td")).textContent = `${o.breaches.length} suffered`;
        tr.className = "fought";
      } else {
        cellHired.appendChild(stepper(form2[p].hired, hireable(v.tower, p), (k) => { form.players[p].hired = k; render(); }, `hired-${p}`));
        cellWall.appendChild(stepper(form2[p].repaired, SECTIONS, (k) => { form.players[p].repaired = k; render(); }, `repaired-${p}`));
        const e = expected[p];
        const pts = tr.appendChild(document.createElement("td"));
        pts.textContent = e.points.toFixed(2);
        pts.dataset.expectPoints = e.points;
        pts.dataset.se = e.pointsSe;
        const br = tr.appendChild(document.createElement("td"));
        br.textContent = e.breaches.toFixed(2);
        br.dataset.expectBreaches = e.breaches;
        br.dataset.se = e.breachesSe;
      }
      return tr;
    }));
    $("battle-expect-note").textContent = `Expected values: the average over ${BATTLE_SAMPLES.toLocaleString("en")} ` +
      "seasons simulated with this tower from what is inside it now (as tower battle computes them).";
    $("battle-next").textContent = `${next.player}'s battle throws ${describe(next.thrown)}.`;
    $("battle-throw").textContent = `Throw for ${next.player}`;
  }

  // ---------------------------------------------------------------- the page
  function renderResult() {
    const last = app.view.last;
    const battle = $("battle-result");
    battle.replaceChildren();
    if (!last) {
      $("last-throw").textContent = "Nothing thrown yet.";
      $("out-pieces").replaceChildren();
    } else {
      $("last-throw").textContent = `${last.label[0].toUpperCase()}${last.label.slice(1)}: ${describe(last.thrown)} went in; ` +
        `${last.out.length} came out.`;
      $("out-pieces").replaceChildren(...chips(last.out));
      // every battle of the season so far, at its wall
      if (last.battle) battle.append(...(app.view.battles.length ? app.view.battles : app.view.lastBattles).map((b) => wallPicture(b.outcome)));
    }
    const inside = app.view.tower.residents;
    const byPlace = PLACES.map((p) => [p, inside.filter((r) => r.place === p).length]).filter(([, n]) => n);
    $("inside-summary").textContent = inside.length
      ? `${countWord(inside.length, "piece")} inside: ${byPlace.map(([p, n]) => `${n} on the ${PLACE_NAME[p]}`).join(", ")}.`
      : "The tower is empty.";
    $("inside-pieces").replaceChildren(...chips(inside.map((r) => r.piece)));
  }

  /** One battle's outcome at the wall: six sections, bricks, guards, breaches. */
  function wallPicture(o) {
    const div = document.createElement("div");
    div.className = "wall";
    div.dataset.player = o.player;
    div.dataset.points = o.points;
    div.dataset.breaches = o.breaches.length;
    const p = document.createElement("p");
    const mali = o.mali.length ? ` Breaches: ${o.mali.join("; ")}.` : " No breach.";
    p.textContent = `${o.player}: ${countWord(o.defenders, "watchman")} of their own, ` +
      `${countWord(o.brigands + o.otherWatchmen, "attacker")} came out; ` +
      `${o.repelled} repelled, ${o.points} ${o.points === 1 ? "point" : "points"}.${mali}`;
    const row = document.createElement("div");
    row.className = "sections";
    for (let s = 0; s < SECTIONS; s++) {
      const cell = document.createElement("span");
      const state = o.breaches.includes(s) ? "breach" : o.guarded.includes(s) ? "guard" : s < o.repaired ? "brick" : "open";
      cell.className = `section ${state}`;
      cell.textContent = { breach: "breach", guard: "guard", brick: "brick", open: "gap" }[state];
      row.appendChild(cell);
    }
    div.append(p, row);
    return div;
  }

  function renderStatus() {
    const v = app.view;
    const g = app.game;
    const mods = [g.modules.walls && "Walls & Guards", g.modules.experts && "Gems & Experts"].filter(Boolean);
    const where = v.phase === "over" ? "Game over"
      : v.phase === "battle" ? `Season ${v.season} · Battle at the Wall`
        : `Season ${v.season} of ${SEASONS} · Round ${v.round} of ${ROUNDS}`;
    $("status").textContent = `${where} · ${g.players} players${mods.length ? ` · ${mods.join(", ")}` : ""}`;
    $("undo").disabled = g.steps.length === 0;
  }

  function render() {
    const v = app.view;
    renderStatus();
    $("round-entry").hidden = v.phase !== "round";
    $("battle-entry").hidden = v.phase !== "battle";
    $("game-over").hidden = v.phase !== "over";
    $("expert-entry").hidden = !app.game.modules.experts;
    $("throw-title").textContent = v.phase === "round" ? `Round ${v.round}: what goes in`
      : v.phase === "battle" ? "Battle at the Wall" : "Game over";
    if (v.phase === "round") renderEntry();
    if (v.phase === "battle") {
      renderBattle();
      saveEntry();
    }
    renderResult();
    drawTower(v.last ? v.last.out : []);
    drawLaw();
    drawHistory();
    $("total-in").textContent = v.totalIn;
    $("total-out").textContent = v.totalOut;
    $("total-inside").textContent = v.tower.residents.length;
  }

  // ---------------------------------------------------------------- game controls
  function throwRound() {
    const pieces = entryPieces().sort(pyOrder);
    if (!pieces.length && !app.view.carry.length) return;
    if (play({ t: "round", pieces })) {
      app.entry = {};
      $("typed").value = "";
      render();
    }
  }

  function throwBattle() {
    const b = nextBattle();
    if (b && play({ t: "battle", player: b.player, hired: b.hired, repaired: b.repaired })) render();
  }

  function undo() {
    if (!app.game.steps.length) return;
    const step = app.game.steps[app.game.steps.length - 1];
    app.game = { ...app.game, steps: app.game.steps.slice(0, -1) };
    app.view = replay(app.game, app.model);
    if (step.t === "round") {
      // the undone throw's keshis are back in the entry, to correct and throw again
      app.entry = {};
      app.experts = 0;
      for (const p of step.pieces) {
        if (p === EXPERT && app.game.modules.experts) app.experts += 1;
        else app.entry[p] = (app.entry[p] || 0) + 1;
      }
    }
    showError("");
    save();
    render();
  }

  function download(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  function exportLog() {
    const doc = { ...app.game, model: { name: app.model.name, sha256: app.model.sha256 } };
    download("tower-game.json", `${JSON.stringify(doc, null, 1)}\n`, "application/json");
  }

  function importLog(text, name) {
    let log;
    try {
      log = JSON.parse(text);
    } catch {
      showError(`${name} cannot be imported: it is not JSON.`);
      return;
    }
    const wrong = checkLog(log);
    if (wrong) {
      showError(`${name} cannot be imported: ${wrong}.`);
      return;
    }
    try {
      replay(log, app.model);
    } catch (exc) {
      showError(`${name} cannot be imported: ${exc.message}.`);
      return;
    }
    const note = log.model && log.model.sha256 !== app.model.sha256
      ? `Imported ${name}; it was played with the tower “${log.model.name}”, and replays with “${app.model.name}”.` : "";
    startGame({ format: LOG_FORMAT, seed: log.seed, players: log.players,
      modules: { walls: Boolean(log.modules.walls), experts: Boolean(log.modules.experts) }, steps: log.steps });
    showError(note);
  }

  // ---------------------------------------------------------------- the recorder
  const REC_PER_THROW = 12;

  function newRecording() {
    return { session: "s1", tower: $("rec-tower").value || "marrakesh", text: $("rec-text").value || "", throws: [] };
  }

  /** Pieces of each colour in so far minus out so far: what can still come out. */
  function recInside(throws) {
    const inside = Object.fromEntries(KESHI.map((c) => [c, 0]));
    for (const t of throws) {
      for (const [c, n] of Object.entries(t.in)) inside[c] += n;
      for (const [c, n] of Object.entries(t.out)) inside[c] -= n;
    }
    return inside;
  }

  function recNextColour() {
    return KESHI[app.recorder.throws.length % KESHI.length];
  }

  function recChange(piece, delta) {
    const colour = colourOf(piece);
    const could = recInside(app.recorder.throws)[colour] + (colour === recNextColour() ? REC_PER_THROW : 0);
    const n = Math.min(Math.max((app.recEntry[colour] || 0) + delta, 0), could);
    if (n) app.recEntry[colour] = n;
    else delete app.recEntry[colour];
    renderRecorder();
  }

  const total = (counts) => Object.values(counts).reduce((a, n) => a + n, 0);
  const countsText = (counts) => KESHI.filter((c) => counts[c]).map((c) => `${c}=${counts[c]}`).join(" ") || "-";

  function renderRecorder() {
    const r = app.recorder;
    const n = r.throws.length + 1;
    const colour = recNextColour();
    const tin = r.throws.reduce((a, t) => a + total(t.in), 0);
    const tout = r.throws.reduce((a, t) => a + total(t.out), 0);
    $("rec-counts").textContent = `${countWord(r.throws.length, "throw")} recorded: ${tin} keshis in, ${tout} out, ${tin - tout} inside.`;
    $("rec-title").textContent = `Throw ${n}`;
    $("rec-instruction").textContent = `Throw ${REC_PER_THROW} ${colour} keshis into your tower, wait until nothing moves, then tap every keshi in the base.`;
    for (const cell of document.querySelectorAll("#rec-grid .cell")) {
      const c = colourOf(cell.firstChild.dataset.piece);
      const k = app.recEntry[c] || 0;
      cell.querySelector(".count").textContent = k ? `×${k}` : "";
      cell.classList.toggle("on", k > 0);
    }
    $("rec-summary").textContent = `Came out: ${total(app.recEntry) ? describe(Object.entries(app.recEntry).flatMap(([c, k]) => Array(k).fill(`keshi:${c}`))) : "nothing (tap Save if nothing came out)"}.`;
    $("rec-undo").disabled = r.throws.length === 0 && total(app.recEntry) === 0;
    $("rec-download").disabled = r.throws.length === 0;
    let inside = 0;
    $("rec-table").tBodies[0].replaceChildren(...r.throws.map((t, i) => {
      inside += total(t.in) - total(t.out);
      const tr = document.createElement("tr");
      for (const val of [i + 1, countsText(t.in), countsText(t.out), inside]) tr.appendChild(document.createElement("td")).textContent = val;
      return tr;
    }).reverse());
  }

  function recSave() {
    const r = app.recorder;
    r.throws.push({ in: { [recNextColour()]: REC_PER_THROW }, out: { ...app.recEntry } });
    app.recEntry = {};
    saveRecorder();
    renderRecorder();
  }

  function recUndo() {
    if (total(app.recEntry)) app.recEntry = {};
    else if (app.recorder.throws.length) app.recEntry = { ...app.recorder.throws.pop().out };
    saveRecorder();
    renderRecorder();
  }

  function saveRecorder() {
    app.recorder.tower = $("rec-tower").value.trim() || "marrakesh";
    app.recorder.text = $("rec-text").value;
    try {
      localStorage.setItem(STORE.recorder, JSON.stringify(app.recorder));
    } catch {
      showError("This browser does not keep the recording: download it to keep it.");
    }
  }

  const csvField = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

  /** The recording as tower.recording/1 CSV (tower/calibration/recording.py). */
  function recordingCsv(r) {
    const lines = ["record,session,throw,in,out,start,tower,set,text", "schema,,,,,,,,tower.recording/1",
      `meta,,,,,,,,${csvField(JSON.stringify({ synthetic: false, source: "web page recorder", protocol: "one-colour" }))}`,
      `session,${r.session},,,,empty,${csvField(r.tower)},,${csvField(r.text)}`];
    r.throws.forEach((t, i) => lines.push(`throw,${r.session},${i + 1},${countsText(t.in)},${countsText(t.out)},,,,`));
    return `${lines.join("\n")}\n`;
  }

  // ---------------------------------------------------------------- wiring
  function build() {
    $("keshi-grid").replaceChildren(...KESHI.map((c) => tapButton(`keshi:${c}`, changeEntry)));
    $("pawn-grid").replaceChildren(...[...SEATS.map((c) => `watchman:${c}`), BRIGAND].map((p) => tapButton(p, changeEntry)));
    $("rec-grid").replaceChildren(...KESHI.map((c) => tapButton(`keshi:${c}`, recChange)));
    $("expert-buttons").replaceChildren(...Array.from({ length: MAX_EXPERTS + 1 }, (_, k) => {
      const b = document.createElement("button");
      b.className = "secondary";
      b.dataset.experts = k;
      b.textContent = k;
      b.addEventListener("click", () => { app.experts = k; renderEntry(); drawLaw(); });
      return b;
    }));
    document.querySelectorAll("button[data-expect]").forEach((b) => b.addEventListener("click", () => {
      app.expect = Number(b.dataset.expect);
      renderEntry();
    }));
    $("typed").addEventListener("change", () => {
      const { counts, error } = parseTyped($("typed").value);
      if (error) {
        showError(error);
        return;
      }
      showError("");
      app.entry = counts;
      renderEntry();
      drawLaw();
    });
    $("throw").addEventListener("click", throwRound);
    $("clear").addEventListener("click", () => { app.entry = {}; app.experts = 0; $("typed").value = ""; renderEntry(); drawLaw(); });
    $("battle-throw").addEventListener("click", throwBattle);
    $("battle-first").addEventListener("change", () => { battleForm().first = $("battle-first").value; render(); });
    $("undo").addEventListener("click", undo);
    $("new-game").addEventListener("click", () => {
      const n = app.game.steps.length;
      $("new-game-warning").textContent = n ? `This game's ${countWord(n, "step")} will be gone (export the log first to keep them).` : "";
      $("ng-players").value = String(app.game.players);
      $("new-game-box").hidden = false;
    });
    $("ng-cancel").addEventListener("click", () => { $("new-game-box").hidden = true; });
    $("ng-start").addEventListener("click", () => {
      $("new-game-box").hidden = true;
      startGame(newGameLog({ players: Number($("ng-players").value), walls: $("ng-walls").checked,
        experts: $("ng-experts").checked, seed: Math.max(0, Math.floor(Number($("ng-seed").value) || 0)) }));
    });
    $("export").addEventListener("click", exportLog);
    readFiles("import-file", importLog);
    readFiles("model-file", (text, name) => {
      showError("");
      if (!useModel(text, name, { remember: true })) return;
      try {
        startGame({ ...app.game });
      } catch (exc) {
        // the game so far cannot be played with this tower (e.g. it has no class for a piece)
        showError(`This game cannot be replayed with ${name} (${exc.message}); a new game begins.`);
        startGame(newGameLog({ players: app.game.players, ...app.game.modules, seed: app.game.seed }));
      }
    });
    document.querySelectorAll("[data-tab]").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));
    $("rec-save").addEventListener("click", recSave);
    $("rec-undo").addEventListener("click", recUndo);
    $("rec-download").addEventListener("click", () => { saveRecorder(); download("my-tower.csv", recordingCsv(app.recorder), "text/csv"); });
    $("rec-new").addEventListener("click", () => { $("rec-new-box").hidden = false; });
    $("rec-new-no").addEventListener("click", () => { $("rec-new-box").hidden = true; });
    $("rec-new-yes").addEventListener("click", () => {
      $("rec-new-box").hidden = true;
      app.recorder = newRecording();
      app.recEntry = {};
      saveRecorder();
      renderRecorder();
    });
    for (const id of ["rec-tower", "rec-text"]) $(id).addEventListener("change", saveRecorder);
  }

  function readFiles(id, use) {
    $(id).addEventListener("change", (ev) => {
      const file = ev.target.files[0];
      if (!file) return;
      const reader = new FileReader();
      reader.onload = () => use(String(reader.result), file.name);
      reader.onerror = () => showError(`${file.name} cannot be read.`);
      reader.readAsText(file);
      ev.target.value = "";
    });
  }

  function showTab(tab) {
    for (const name of ["game", "recorder"]) {
      $(name).hidden = name !== tab;
      $(`tab-${name}`).setAttribute("aria-selected", String(name === tab));
    }
    if (tab === "recorder") renderRecorder();
    try {
      localStorage.setItem("tower.web.tab", tab);
    } catch { /* the tab is a convenience */ }
  }

  function loadStored(key) {
    try {
      return JSON.parse(localStorage.getItem(key) || "null");
    } catch {
      return null;
    }
  }

  function init() {
    build();
    const stored = loadStored(STORE.model);
    if (!(stored && useModel(stored.text, stored.source))) {
      if (!(globalThis.TOWER_MODELS && TOWER_MODELS.marrakesh && useModel(TOWER_MODELS.marrakesh, "the shipped model marrakesh.json"))) {
        $("model-info").textContent = "No tower model here: open a model file.";
        return;
      }
    }
    const saved = loadStored(STORE.game);
    let log = newGameLog();
    if (saved && !checkLog(saved)) {
      try {
        replay(saved, app.model);
        log = saved;
      } catch (exc) {
        showError(`The saved game cannot be replayed with this tower (${exc.message}); a new game begins.`);
      }
    }
    const kept = loadStored(STORE.entry); // read before startGame saves the empty entry
    startGame(log);
    restoreEntry(kept);
    render();
    const rec = loadStored(STORE.recorder);
    app.recorder = rec && Array.isArray(rec.throws) ? rec : newRecording();
    $("rec-tower").value = app.recorder.tower;
    $("rec-text").value = app.recorder.text;
    showTab(localStorage.getItem("tower.web.tab") === "recorder" ? "recorder" : "game");
  }

  init();
})();
