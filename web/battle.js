// The Battle at the Wall (Walls & Guards, "Battle at the Wall") for the page: which pieces a
// player throws and what the pieces that fell out do against their wall. The same rules and
// rulings as tower/marrakesh/wall_battle.py (battle_throw, resolve_battle, the wall of six
// sections left to right); the chance of what falls out is the tower model's, never here.
// A classic script (sets globalThis.TowerBattle), so the page works from file://.
"use strict";

(function (global) {
  /** Sections of a player's city wall (one per brick tile). */
  const SECTIONS = 6;
  /** Brigands the first player throws: "1st season: 1 brigand ... 3rd season: 3 brigands". */
  const BRIGANDS_PER_SEASON = { 1: 1, 2: 2, 3: 3 };
  /** Components: 3 brigands; 3 watchmen per player. */
  const BRIGANDS_IN_BOX = 3;
  const WATCHMEN_PER_PLAYER = 3;
  /** The malus printed on each section's gap, left to right (as WALL_SECTIONS in Python). */
  const MALI = [
    "1 orange, purple or yellow keshi",
    "any 2 resources",
    "2 steps back on a staircase",
    "any 1 keshi",
    "1 luxury good",
    "1 city gate back to a workshop",
  ];

  const kindOf = (piece) => piece.slice(0, piece.indexOf(":"));
  const colourOf = (piece) => piece.slice(piece.indexOf(":") + 1);

  /** Brigands the first player throws in `season` when `available` stand by the tower. */
  function brigandsForSeason(season, available = BRIGANDS_IN_BOX) {
    if (!(season in BRIGANDS_PER_SEASON)) throw new RangeError(`season must be 1, 2 or 3, got ${season}`);
    return Math.min(BRIGANDS_PER_SEASON[season], available);
  }

  /**
   * The pieces `player` throws: the first battle of a season (`base` null) their hired
   * watchmen and the season's brigands; every later one everything that fell out of the
   * battle before (the tower's base) with their own hired watchmen.
   */
  function battleThrow(season, player, hired, base, brigandsAvailable = BRIGANDS_IN_BOX) {
    const own = Array(hired).fill(`watchman:${player}`);
    if (base === null) return [...own, ...Array(brigandsForSeason(season, brigandsAvailable)).fill("brigand:neutral")];
    return [...base, ...own];
  }

  /**
   * What the pieces `out` do in `player`'s battle against a wall with `repaired` brick tiles:
   * own watchmen guard the first gaps from the left; brigands and other players' watchmen
   * attack from the left, each meeting a brick or a guard is repelled (1 point), each meeting
   * a gap is a breach (that section's malus). Attackers beyond the sixth section find no wall.
   */
  function resolveBattle(player, out, repaired) {
    if (!(Number.isInteger(repaired) && repaired >= 0 && repaired <= SECTIONS)) {
      throw new RangeError(`a wall has ${SECTIONS} sections; repaired=${repaired}`);
    }
    let defenders = 0;
    let brigands = 0;
    let others = 0;
    for (const p of out) {
      const kind = kindOf(p);
      if (kind === "watchman" && colourOf(p) === player) defenders += 1;
      else if (kind === "watchman") others += 1;
      else if (kind === "brigand") brigands += 1;
    }
    const gaps = [];
    for (let s = repaired; s < SECTIONS; s++) gaps.push(s);
    const guarded = gaps.slice(0, defenders);
    const protectedSections = new Set([...Array(repaired).keys(), ...guarded]);
    const attackers = brigands + others;
    const placed = Math.min(attackers, SECTIONS);
    const sections = [...Array(placed).keys()];
    const breaches = sections.filter((s) => !protectedSections.has(s));
    const repelled = placed - breaches.length;
    return {
      player, repaired, defenders, brigands, otherWatchmen: others, guarded, repelled, breaches,
      unopposed: attackers - placed, points: repelled, mali: breaches.map((s) => MALI[s]),
    };
  }

  global.TowerBattle = {
    SECTIONS, BRIGANDS_IN_BOX, WATCHMEN_PER_PLAYER, MALI, brigandsForSeason, battleThrow, resolveBattle,
  };
})(globalThis);
