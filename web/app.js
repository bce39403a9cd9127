// The digital tower page: plays the model with the JavaScript port (tower-model.js, which
// sets globalThis.TowerModel) and draws the tower, the pieces out, the content over the
// game and the law of the next throw's count out. A classic script, so the page works
// from file:// (browsers refuse ES modules and fetch() there).
/* global TowerModel, TOWER_MODELS */
"use strict";

(function () {
  const { loadModel, Tower, PythonRandom, PLACES } = TowerModel;

  const KESHI_COLOURS = ["green", "gray", "white", "black", "pink", "turquoise", "beige", "brown",
    "red", "yellow", "purple", "orange"];
  // Player colours of watchmen (assumed names, as in the conformance vectors).
  const PLAYER_COLOURS = ["red", "blue", "yellow", "green"];
  const CSS = { gray: "#8a8a8a", white: "#f4f4f0", black: "#222", pink: "#f2a0c0", turquoise: "#3cc0b8",
    beige: "#e2d2a8", brown: "#7b4a26", red: "#c8302c", yellow: "#f0c419", purple: "#7e4aa0",
    orange: "#ee8a22", green: "#3f9a3a", blue: "#2e62b8", neutral: "#5a5048" };
  const PLACE_COLOUR = { funnel: "#c9a66b", floor1: "#8fae6b", floor2: "#5f8fa8", ramp: "#a0708f" };
  const SVG = "http://www.w3.org/2000/svg";

  // What each button throws. `rng` draws colours and counts (not the tower's draws).
  const THROWS = {
    round2: { label: "2-player round", pieces: (rng) => keshis(rng, 6) },
    round3: { label: "3-player round", pieces: (rng) => keshis(rng, 9) },
    round4: { label: "4-player round", pieces: (rng) => keshis(rng, 12) },
    // Walls & Guards: each of 4 players hires 0-3 watchmen; 1-3 brigands (the season).
    battle: { label: "battle throw", pieces: (rng) => [
      ...PLAYER_COLOURS.flatMap((c) => Array(int(rng, 0, 3)).fill(`watchman:${c}`)),
      ...Array(int(rng, 1, 3)).fill("brigand:neutral")] },
    // Gems & Experts: a 4-player round and 1-5 expert keshis.
    expert: { label: "expert round", pieces: (rng) => [
      ...keshis(rng, 12),
      ...Array.from({ length: int(rng, 1, 5) }, () => `expert:${pick(rng, KESHI_COLOURS)}`)] },
  };

  function int(rng, lo, hi) { return lo + Math.floor(rng.random() * (hi - lo + 1)); }
  function pick(rng, list) { return list[Math.floor(rng.random() * list.length)]; }
  function keshis(rng, n) { return Array.from({ length: n }, () => `keshi:${pick(rng, KESHI_COLOURS)}`); }

  const $ = (id) => document.getElementById(id);
  const game = { model: null, tower: null, pick: null, history: [], in: 0, out: 0,
    nextKind: "round4", nextPieces: [] };

  function el(tag, attrs = {}, parent = null) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function colourOf(piece) {
    const colour = piece.slice(piece.indexOf(":") + 1);
    return CSS[colour] || colour;
  }

  const NAMES = { keshi: ["keshi", "keshis"], watchman: ["watchman", "watchmen"],
    brigand: ["brigand", "brigands"], expert: ["expert", "experts"], cube: ["cube", "cubes"] };

  function describe(pieces) {
    const byKind = {};
    for (const p of pieces) {
      const k = p.slice(0, p.indexOf(":"));
      byKind[k] = (byKind[k] || 0) + 1;
    }
    const parts = Object.entries(byKind).map(([k, n]) => `${n} ${(NAMES[k] || [k, k])[n === 1 ? 0 : 1]}`);
    return parts.join(", ") || "nothing";
  }

  // ---- one piece as an SVG shape: keshis and experts octagons, pawns as pawns
  function drawPiece(svg, piece, x, y, place) {
    const kind = piece.slice(0, piece.indexOf(":"));
    const fill = colourOf(piece);
    const g = el("g", { class: "piece", "data-piece": piece, "data-place": place,
      transform: `translate(${x},${y})` }, svg);
    if (kind === "watchman" || kind === "brigand") {
      el("path", { d: "M-4 5 L-1.6 -1 L1.6 -1 L4 5 Z", fill, stroke: "#0008", "stroke-width": 0.6 }, g);
      el("circle", { cx: 0, cy: -3, r: 2.4, fill, stroke: "#0008", "stroke-width": 0.6 }, g);
    } else {
      const r = kind === "expert" ? 5.2 : 4.4;
      const pts = Array.from({ length: 8 }, (_, i) => {
        const a = Math.PI / 8 + (i * Math.PI) / 4;
        return `${(r * Math.cos(a)).toFixed(2)},${(r * Math.sin(a)).toFixed(2)}`;
      }).join(" ");
      el("polygon", { points: pts, fill, stroke: kind === "expert" ? "#d4a017" : "#0008",
        "stroke-width": kind === "expert" ? 1.6 : 0.6 }, g);
    }
    const title = el("title", {}, g);
    title.textContent = `${piece} (${place})`;
  }

  // ---- the tower, cut away: funnel, two floors with holes, ramp, courtyard
  // Zones where the residents of each place are drawn: [x0, x1, yBottom].
  const ZONES = { funnel: [72, 168, 62], floor1: [62, 178, 138], floor2: [62, 178, 208], ramp: [62, 178, 262] };

  function drawTower(lastOut) {
    const svg = $("tower");
    svg.replaceChildren();
    const wall = { fill: "#d9c7a3", stroke: "#8a7350", "stroke-width": 1 };
    el("polygon", { points: "30,8 210,8 178,70 62,70", fill: "#efe2c6", stroke: "#8a7350" }, svg); // funnel
    el("line", { x1: 120, y1: 8, x2: 120, y2: 70, stroke: "#8a7350", "stroke-dasharray": "2 2" }, svg); // rib
    el("rect", { x: 52, y: 70, width: 8, height: 215, ...wall }, svg); // tube walls
    el("rect", { x: 180, y: 70, width: 8, height: 185, ...wall }, svg);
    for (const [y, holes] of [[140, [[80, 98], [140, 158]]], [210, [[66, 84], [112, 130], [160, 176]]]]) {
      let x = 60;
      for (const [a, b] of holes) {
        el("rect", { x, y, width: a - x, height: 5, ...wall }, svg);
        x = b;
      }
      el("rect", { x, y, width: 180 - x, height: 5, ...wall }, svg);
    }
    el("polygon", { points: "60,262 180,282 180,287 60,267", ...wall }, svg); // ramp, towards the exit
    el("polygon", { points: "188,255 236,255 236,318 40,318 40,290 188,290",
      fill: "#f3ead8", stroke: "#8a7350" }, svg); // courtyard
    for (const [place, [x0, , y]] of Object.entries(ZONES)) {
      const t = el("text", { x: x0 - 48, y: y - 2, "font-size": 8, fill: PLACE_COLOUR[place] }, svg);
      t.textContent = place;
    }
    const label = el("text", { x: 196, y: 312, "font-size": 8, fill: "#8a7350" }, svg);
    label.textContent = "out";
    // residents, by place, in rows from the floor upwards
    const byPlace = Object.fromEntries(PLACES.map((p) => [p, []]));
    for (const r of game.tower.residents) byPlace[r.place].push(r.piece);
    for (const [place, pieces] of Object.entries(byPlace)) {
      const [x0, x1, yb] = ZONES[place];
      const perRow = Math.floor((x1 - x0) / 11);
      pieces.forEach((p, i) => {
        const x = x0 + 6 + (i % perRow) * 11;
        const y = yb - 6 - Math.floor(i / perRow) * 11 + (place === "ramp" ? ((x - 60) / 120) * 20 : 0);
        drawPiece(svg, p, x, y, place);
      });
    }
    // the last throw's pieces out, in the courtyard
    lastOut.forEach((p, i) => drawPiece(svg, p, 50 + (i % 16) * 11, 300 - Math.floor(i / 16) * 9, "out"));
  }

  // ---- the law of the next throw's count out, as bars
  function drawLaw() {
    const svg = $("law");
    svg.replaceChildren();
    const law = game.tower.countLaw(game.nextPieces);
    const last = Math.max(...law.map((p, k) => (p > 5e-4 ? k : 0)), 1);
    const shown = law.slice(0, last + 1);
    const top = Math.max(...shown);
    const w = 290 / shown.length;
    law.forEach((p, k) => {
      // every bar is in the SVG (the test sums them); bars beyond `last` are too small to see
      const h = k <= last ? (p / top) * 130 : 0;
      const x = 24 + k * w;
      el("rect", { class: "bar", "data-k": k, "data-p": p, x: x + 0.5, y: 145 - h,
        width: Math.max(w - 1, 0.5), height: h, fill: "#b5542c", display: k <= last ? null : "none" }, svg);
      if (k <= last && (shown.length <= 20 || k % 2 === 0)) {
        const t = el("text", { x: x + w / 2, y: 157, "font-size": 8, "text-anchor": "middle" }, svg);
        t.textContent = k;
      }
    });
    el("line", { x1: 24, y1: 145, x2: 314, y2: 145, stroke: "#0006" }, svg);
    const mean = law.reduce((a, p, k) => a + p * k, 0);
    const cap = el("text", { x: 24, y: 10, "font-size": 8, fill: "#6f6453" }, svg);
    cap.textContent = `highest bar ${(top * 100).toFixed(1)} %; mean ${mean.toFixed(2)} out`;
    $("law-caption").textContent = `If the next throw is a ${THROWS[game.nextKind].label} of ` +
      `${describe(game.nextPieces)} (${game.nextPieces.length} pieces, ${game.tower.residents.length} inside): ` +
      `probability of each number of pieces out.`;
  }

  // ---- the content over the game: pieces inside after each throw, stacked by place
  function drawHistory() {
    const svg = $("history");
    svg.replaceChildren();
    const rows = game.history;
    const top = Math.max(10, ...rows.map((r) => r.inside));
    const w = 290 / Math.max(rows.length, 12);
    rows.forEach((r, i) => {
      let y = 145;
      for (const place of PLACES) {
        const h = (r.byPlace[place] / top) * 130;
        y -= h;
        el("rect", { x: 24 + i * w + 0.5, y, width: Math.max(w - 1, 0.5), height: h, fill: PLACE_COLOUR[place] }, svg);
      }
      const t = el("text", { x: 24 + i * w + w / 2, y: 157, "font-size": 7, "text-anchor": "middle" }, svg);
      t.textContent = i + 1;
    });
    el("line", { x1: 24, y1: 145, x2: 314, y2: 145, stroke: "#0006" }, svg);
    for (const v of [0, Math.round(top / 2), top]) {
      const t = el("text", { x: 20, y: 148 - (v / top) * 130, "font-size": 7, "text-anchor": "end" }, svg);
      t.textContent = v;
    }
    $("history-legend").innerHTML = PLACES.map((p) => `<span style="--c:${PLACE_COLOUR[p]}">${p}</span>`).join("");
    const body = $("history-table").tBodies[0];
    body.replaceChildren(...rows.map((r, i) => {
      const tr = document.createElement("tr");
      for (const v of [i + 1, r.label, r.in, r.out, r.inside]) {
        const td = document.createElement("td");
        td.textContent = v;
        tr.appendChild(td);
      }
      return tr;
    }));
  }

  function render(lastOut) {
    drawTower(lastOut);
    drawLaw();
    drawHistory();
    $("total-in").textContent = game.in;
    $("total-out").textContent = game.out;
    $("total-inside").textContent = game.tower.residents.length;
  }

  function newGame() {
    const seed = Math.max(0, Math.floor(Number($("seed").value) || 0));
    game.tower = new Tower(game.model, { seed });
    game.pick = new PythonRandom(seed + 1_000_003); // the pieces' colours and counts
    game.history = [];
    game.in = 0;
    game.out = 0;
    game.nextKind = "round4";
    game.nextPieces = THROWS.round4.pieces(game.pick);
    $("last-throw").textContent = "Nothing thrown yet.";
    $("out-pieces").replaceChildren();
    render([]);
  }

  function throwKind(kind) {
    if (kind !== game.nextKind) {
      game.nextKind = kind;
      game.nextPieces = THROWS[kind].pieces(game.pick);
    }
    const pieces = game.nextPieces;
    const out = game.tower.throw(pieces);
    game.in += pieces.length;
    game.out += out.length;
    const byPlace = Object.fromEntries(PLACES.map((p) => [p, 0]));
    for (const r of game.tower.residents) byPlace[r.place] += 1;
    game.history.push({ label: THROWS[kind].label, in: pieces.length, out: out.length,
      inside: game.tower.residents.length, byPlace });
    $("last-throw").textContent = `Throw ${game.history.length}, ${THROWS[kind].label}: ` +
      `${pieces.length} in (${describe(pieces)}), ${out.length} out.`;
    $("out-pieces").replaceChildren(...out.map((p) => {
      const chip = document.createElement("span");
      chip.className = "chip";
      chip.dataset.piece = p;
      chip.innerHTML = `<span class="dot" style="background:${colourOf(p)}"></span>${p.replace(":", " ")}`;
      return chip;
    }));
    game.nextPieces = THROWS[kind].pieces(game.pick);
    render(out);
  }

  function useModel(text, source) {
    try {
      const model = loadModel(text, source);
      game.model = model;
      $("error").hidden = true;
      $("model-info").textContent = `Model “${model.name}” (${model.schema}), checksum verified: ` +
        `sha256 ${model.sha256.slice(0, 16)}…, from ${source}.`;
      newGame();
    } catch (exc) {
      $("error").textContent = `Cannot use ${source}: ${exc.message}`;
      $("error").hidden = false;
    }
  }

  document.querySelectorAll("button[data-throw]").forEach((b) =>
    b.addEventListener("click", () => game.model && throwKind(b.dataset.throw)));
  $("new-game").addEventListener("click", () => game.model && newGame());
  $("seed").addEventListener("change", () => game.model && newGame());
  $("model-file").addEventListener("change", (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    const reader = new FileReader();
    reader.onload = () => useModel(String(reader.result), file.name);
    reader.onerror = () => useModel("", file.name);
    reader.readAsText(file);
    ev.target.value = "";
  });

  const params = new URLSearchParams(location.search);
  if (params.has("seed")) $("seed").value = params.get("seed");
  if (globalThis.TOWER_MODELS && TOWER_MODELS.marrakesh) {
    useModel(TOWER_MODELS.marrakesh, "the shipped model marrakesh.json");
  } else {
    $("model-info").textContent = "No model bundled: open a model file.";
  }
})();
