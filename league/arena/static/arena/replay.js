// The replay viewer (/games/<id>/). The page embeds, as JSON, the engine's state after every turn (hands,
// draw piles, pile tops, signals, commands in force) and each turn's plays; this script lays the plays onto
// the piles between two snapshots, checks it lands on the engine's tops, and draws the table at a position.
// Positions: the deal, then for each turn t its plays (t.1, t.2, ...) and its end (t, after the draw), then
// the failed turn when a bot's failure ended the game. The address hash holds it: #turn=12 or #turn=12.3.
"use strict";

(() => {
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const $ = (id) => document.getElementById(id);
  const board = $("replay-board");
  const moveText = $("replay-move");
  const positionText = $("replay-position");
  const slider = $("replay-slider");
  const playButton = $("replay-play");
  const speedSelect = $("replay-speed");
  const byPlayBox = $("replay-by-play");

  const FACE_TO_FACE = data.game === "face-to-face";
  const BOT_FAILURES = ["timeout", "crash", "protocol-error", "resource-limit", "sandbox-violation"];
  const SIGNALS = { k: "keep-off", j: "jump" };
  const turns = data.turns;
  const states = data.states;
  const lastTurn = turns.length;
  const failed = data.rejected !== null || BOT_FAILURES.includes(data.result.termination);
  const names = data.seats.map((seat) => seat.short);
  const pileIds = data.piles.map((pile) => pile.id);
  const commandOf = data.commands ? data.commands.cards : {};
  const isInfinity = (command) => data.commands !== null && data.commands.infinity.includes(command);

  // --- positions ---------------------------------------------------------------------------------
  const positions = [{ t: 0, k: 0 }]; // k = 0: the turn is over (drawn); k >= 1: after that play
  const turnEnd = [0];
  turns.forEach((turn, index) => {
    for (let k = 1; k <= turn.plays.length; k++) positions.push({ t: index + 1, k });
    turnEnd.push(positions.length);
    positions.push({ t: index + 1, k: 0 });
  });
  if (failed) {
    turnEnd.push(positions.length);
    positions.push({ t: lastTurn + 1, k: 0, failure: true });
  }
  const finalTurn = turnEnd.length - 1;
  slider.max = String(finalTurn);

  // --- piles: every card each pile received, and how many it held after each turn ----------------
  const pileCards = Object.fromEntries(pileIds.map((id) => [id, []]));
  const pileCounts = [Object.fromEntries(pileIds.map((id) => [id, 0]))];
  const mismatches = [];
  turns.forEach((turn, index) => {
    for (const [card, pile] of turn.plays) pileCards[pile].push(card);
    pileCounts.push(Object.fromEntries(pileIds.map((id) => [id, pileCards[id].length])));
    const tops = pileIds.map((id, i) => topOf(id, pileCards[id].length, data.piles[i].start));
    const engine = states[index + 1];
    if (tops.join() !== engine.tops.join()) mismatches.push(index + 1);
    else if (data.commands && JSON.stringify(inForce(engine.tops)) !== JSON.stringify(engine.in_force)) {
      mismatches.push(index + 1);
    }
  });

  function topOf(pile, count, start) {
    return count ? pileCards[pile][count - 1] : start;
  }

  function inForce(tops) {
    const found = {};
    pileIds.forEach((id, i) => {
      const command = commandOf[String(tops[i])];
      if (command && isInfinity(command)) found[id] = command;
    });
    return found;
  }

  // --- what the table holds at a position -----------------------------------------------------------
  function view(index) {
    const { t, k, failure } = positions[index];
    const done = k === 0 && !failure;
    const base = states[done ? t : t - 1];
    const turn = turns[t - 1];
    const placed = done ? t : t - 1;
    const plays = turn && !failure ? turn.plays.slice(0, done ? turn.plays.length : k) : [];
    const counts = { ...pileCounts[placed] };
    const hands = base.hands.map((hand) => hand.slice());
    if (!done && plays.length) {
      for (const [card, pile] of plays) counts[pile] += 1;
      const left = new Set(plays.map(([card]) => card));
      hands[turn.seat] = hands[turn.seat].filter((card) => !left.has(card));
    }
    const tops = data.piles.map((pile) => topOf(pile.id, counts[pile.id], pile.start));
    const msUsed = data.seats.map(() => ({ ms: 0, turns: 0 }));
    turns.slice(0, done ? t : t - 1).forEach((entry) => {
      msUsed[entry.seat].ms += entry.ms || 0;
      msUsed[entry.seat].turns += 1;
    });
    return {
      t, k, done, failure, turn, plays, counts, hands, tops, msUsed,
      draw: base.draw,
      signals: base.signals || null,
      inForce: data.commands ? inForce(tops) : null,
      mover: failure ? failingSeat() : turn && !done ? turn.seat : null,
      toMove: failure ? null : done ? base.to_move : turn.seat,
      drawn: done && turn ? new Set(turn.drawn) : new Set(),
      drawnSeat: done && turn ? turn.seat : null,
      last: index === positions.length - 1,
    };
  }

  function failingSeat() {
    return data.rejected ? data.rejected.seat : data.result.seat;
  }

  // --- drawing --------------------------------------------------------------------------------------
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function hidden(text) {
    return el("span", "visually-hidden", text);
  }

  function cardNode(card, classes, note) {
    const node = el("span", "playing-card " + (classes || ""), String(card));
    const command = commandOf[String(card)];
    if (command) {
      node.classList.add("cmd");
      node.append(el("span", "cmd-label", (isInfinity(command) ? "\u221e " : "\u26a1 ") + command));
      node.title = `${card}: ${command} (${isInfinity(command) ? "infinity" : "lightning"} command)`;
    }
    if (note) node.append(hidden(` (${note})`));
    return node;
  }

  function pileNode(pile, index, state) {
    const history = [pile.start, ...pileCards[pile.id].slice(0, state.counts[pile.id])];
    const fresh = state.plays.filter(([, p]) => p === pile.id).length; // the last `fresh` cards were just played
    const latest = !state.done && state.plays.length && state.plays[state.plays.length - 1][1] === pile.id;
    const up = pile.direction === "up";
    const node = el("section", `pile ${up ? "up" : "down"}`);
    node.dataset.pile = pile.id;
    const head = el("h3", "pile-head");
    head.append(el("span", "arrow", up ? "\u2191" : "\u2193"), ` ${pile.id} `);
    head.append(el("span", "muted", up ? "ascending" : "descending"));
    node.append(head);
    const top = history[history.length - 1];
    const topClass = fresh ? (latest ? "top played latest" : "top played") : "top";
    const topNode = cardNode(top, topClass, fresh ? "just played" : undefined);
    topNode.dataset.top = String(top);
    const body = el("div", "pile-body");
    body.append(topNode);
    const side = el("div", "pile-side");
    if (state.inForce && state.inForce[pile.id]) {
      side.append(el("p", "in-force", `\u221e ${state.inForce[pile.id]} in force`));
    }
    if (state.signals) {
      const wishes = el("ul", "pile-signals");
      state.signals.forEach((codes, seat) => {
        const code = codes[index];
        if (SIGNALS[code]) wishes.append(el("li", `signal ${code}`, `${names[seat]}: ${SIGNALS[code]}`));
      });
      if (wishes.childElementCount) side.append(wishes);
    }
    const list = el("ol", "history");
    list.setAttribute("aria-label", `${pile.id} history, ${history.length - 1} card(s) played`);
    history.forEach((card, position) => {
      const item = el("li", position === 0 ? "start" : "", String(card));
      if (position >= history.length - fresh) item.classList.add("played");
      list.append(item);
    });
    side.append(list);
    body.append(side);
    node.append(body);
    return node;
  }

  function seatNode(seat, state) {
    const node = el("section", "seat");
    node.dataset.seat = String(seat);
    if (state.toMove === seat) node.classList.add("to-move");
    if (state.mover === seat) node.classList.add("moving");
    const label = data.seats[seat];
    const head = el("h2", "seat-head");
    head.append(el("span", "bot", label.short));
    if (label.version) head.append(" ", el("span", "muted small", label.version));
    if (state.mover === seat) head.append(" ", el("span", "badge turn", state.failure ? "failed" : "moving"));
    else if (state.toMove === seat) head.append(" ", el("span", "badge turn", "to move"));
    node.append(head);
    const hand = state.hands[seat];
    const facts = [`hand ${hand.length}`];
    if (FACE_TO_FACE) facts.push(`draw pile ${state.draw[seat]}`);
    const used = state.msUsed[seat];
    facts.push(`time ${formatMs(used.ms)} over ${used.turns} turn${used.turns === 1 ? "" : "s"}`);
    node.append(el("p", "seat-facts small", facts.join(" \u00b7 ")));
    const handNode = el("div", "hand");
    handNode.setAttribute("aria-label", `${label.short}'s hand`);
    for (const card of hand) {
      const isDrawn = state.drawnSeat === seat && state.drawn.has(card);
      handNode.append(cardNode(card, isDrawn ? "drawn" : "", isDrawn ? "drawn" : undefined));
    }
    if (!hand.length) handNode.append(el("span", "muted small", "no cards"));
    node.append(handNode);
    if (state.signals) {
      const set = signalList(state.signals[seat]);
      node.append(el("p", "seat-signals small", set.length ? `Signals: ${set.join(", ")}` : "No signals"));
    }
    return node;
  }

  // One seat's signals ("--k-": a letter per pile) as "down1 keep-off" and the like.
  function signalList(codes) {
    return pileIds.flatMap((id, i) => (SIGNALS[codes[i]] ? [`${id} ${SIGNALS[codes[i]]}`] : []));
  }

  function faceToFace(state) {
    const table = el("div", "f2f");
    for (const seat of [1, 0]) {
      const side = el("div", `side side-${seat === 1 ? "far" : "near"}`);
      const piles = el("div", "piles");
      data.piles.forEach((pile, index) => {
        if (pile.owner === seat) piles.append(pileNode(pile, index, state));
      });
      side.append(seatNode(seat, state), piles);
      table.append(side);
    }
    return table;
  }

  function coop(state) {
    const table = el("div", "coop");
    const centre = el("div", "centre");
    const piles = el("div", "piles");
    data.piles.forEach((pile, index) => piles.append(pileNode(pile, index, state)));
    centre.append(piles, el("p", "draw-count", `Draw pile: ${state.draw[0]} card${state.draw[0] === 1 ? "" : "s"}`));
    const seats = el("div", "seats");
    data.seats.forEach((_, seat) => seats.append(seatNode(seat, state)));
    table.append(centre, seats);
    return table;
  }

  function formatMs(ms) {
    return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
  }

  // --- describing the move --------------------------------------------------------------------------
  const LIGHTNING_NOTES = {
    stop: "stop: the turn ends here",
    skull: "skull: it must be covered this turn",
    three: "three: the turn has exactly 3 plays",
  };

  function describePlay(card, pile, tops, mover) {
    const index = pileIds.indexOf(pile);
    const info = data.piles[index];
    let text = `${card} on ${pile}`;
    if (info) {
      const top = tops[index];
      const theirs = FACE_TO_FACE && info.owner !== mover;
      if (theirs) text += ` (${names[info.owner]}'s pile)`;
      else if (info.direction === "up" ? card === top - 10 : card === top + 10) text += " (backwards trick)";
    }
    const command = commandOf[String(card)];
    if (command) text += isInfinity(command) ? ` (${command}, in force while on top)` : ` (${LIGHTNING_NOTES[command]})`;
    return text;
  }

  function playsText(plays, beforeTops, mover) {
    const tops = beforeTops.slice();
    return plays.map(([card, pile]) => {
      const text = describePlay(card, pile, tops, mover);
      const index = pileIds.indexOf(pile);
      if (index >= 0) tops[index] = card;
      return text;
    });
  }

  function topsBefore(t) {
    return data.piles.map((pile) => topOf(pile.id, pileCounts[t - 1][pile.id], pile.start));
  }

  function describe(state) {
    const { t, k, turn } = state;
    if (t === 0) {
      const first = names[data.start_seat];
      return FACE_TO_FACE
        ? `The deal: each player holds 6 cards. ${first} moves first.`
        : `The deal: ${data.states[0].hands[0].length} cards each, ${data.states[0].draw[0]} in the draw pile. ${first} moves first.`;
    }
    if (state.failure) return failureText();
    const who = names[turn.seat];
    const texts = playsText(turn.plays, topsBefore(t), turn.seat);
    const prefix = `Turn ${t} of ${lastTurn}`;
    if (k > 0) {
      return `${prefix}, play ${k} of ${turn.plays.length}: ${who} plays ${texts[k - 1]}.`;
    }
    let text = `${prefix}: ${who} played ${joinList(texts)}`;
    text += turn.drawn.length ? ` and drew ${turn.drawn.length} (${turn.drawn.join(", ")})` : " and drew nothing";
    text += turn.ms === null || turn.ms === undefined ? "." : `, in ${formatMs(turn.ms)}.`;
    if (state.signals) {
      const before = states[t - 1].signals[turn.seat];
      const after = state.signals[turn.seat];
      if (before !== after) {
        const set = signalList(after);
        text += set.length ? ` Signals now: ${set.join(", ")}.` : " Signals cleared.";
      }
    }
    if (state.last) text += ` ${data.result.headline}.`;
    return text;
  }

  function failureText() {
    const seat = failingSeat();
    const who = names[seat];
    const prefix = `Turn ${lastTurn + 1}`;
    if (data.rejected) {
      const rejected = data.rejected;
      const tried = rejected.plays ? joinList(playsText(rejected.plays, topsBefore(lastTurn + 1), seat)) : rejected.raw;
      return `${prefix}: ${who} tried ${tried || "an empty turn"}; the turn is rejected (${rejected.rule}). ${data.result.headline}.`;
    }
    return `${prefix}: ${data.result.headline}.`;
  }

  function joinList(items) {
    if (items.length < 2) return items.join("");
    return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
  }

  // --- showing a position ----------------------------------------------------------------------------
  let current = 0;

  function show(index, { updateHash = true } = {}) {
    current = Math.max(0, Math.min(index, positions.length - 1));
    const state = view(current);
    const table = FACE_TO_FACE ? faceToFace(state) : coop(state);
    if (state.failure && data.rejected) table.append(rejectedNode());
    if (mismatches.length) table.prepend(mismatchNode());
    board.replaceChildren(table);
    board.dataset.turn = String(state.t);
    board.dataset.play = String(state.k);
    moveText.textContent = describe(state);
    positionText.textContent = positionLabel(state);
    slider.value = String(state.t);
    slider.setAttribute("aria-valuetext", positionLabel(state));
    const result = $("replay-result");
    result.hidden = !state.last;
    if (state.last) {
      $("replay-headline").textContent = `${data.result.headline}.`;
      $("replay-detail").textContent = data.result.detail ? `In the engine's words: ${data.result.detail}` : "";
    }
    if (updateHash) history.replaceState(null, "", `#turn=${hashOf(positions[current])}`);
    // replay_story.js follows the position (the turn's analysis, output and local replay command).
    const detail = { t: state.t, k: state.k, done: state.done, last: state.last, failure: Boolean(state.failure) };
    document.dispatchEvent(new CustomEvent("replay:position", { detail }));
  }

  function rejectedNode() {
    const rejected = data.rejected;
    const node = el("section", "rejected");
    node.append(el("h2", "", `${names[rejected.seat]}'s rejected turn`));
    const cards = el("div", "hand");
    if (rejected.plays) {
      for (const [card, pile] of rejected.plays) {
        const item = el("span", "attempt");
        item.append(cardNode(card, "refused"), el("span", "small", ` on ${pile}`));
        cards.append(item);
      }
    } else {
      cards.append(el("code", "", rejected.raw));
    }
    node.append(cards, el("p", "small", data.result.detail));
    return node;
  }

  function mismatchNode() {
    const node = el("p", "mismatch", `The replay data disagree with the engine after turn ${mismatches[0]}; do not trust this view.`);
    node.setAttribute("role", "alert");
    return node;
  }

  function positionLabel(state) {
    if (state.t === 0) return `deal · ${lastTurn} turns`;
    if (state.failure) return `turn ${state.t}: ${data.rejected ? "rejected" : data.result.termination}`;
    const play = state.k ? ` · play ${state.k}/${state.turn.plays.length}` : "";
    return `turn ${state.t}/${lastTurn}${play}`;
  }

  function hashOf(position) {
    return position.k ? `${position.t}.${position.k}` : String(position.t);
  }

  function indexOfHash(hash) {
    const match = /^#?turn=(\d+)(?:\.(\d+))?$/.exec(hash);
    if (!match) return null;
    const t = Math.min(Number(match[1]), finalTurn);
    const k = match[2] === undefined ? null : Number(match[2]);
    if (k === null || t === 0 || positions[turnEnd[t]].failure) return turnEnd[t];
    if (k === 0) return turnEnd[t - 1];
    return Math.min(turnEnd[t - 1] + k, turnEnd[t]);
  }

  // --- moving ---------------------------------------------------------------------------------------
  const moves = {
    first: () => 0,
    last: () => positions.length - 1,
    "next-play": () => current + 1,
    "prev-play": () => current - 1,
    "next-turn": () => turnEnd.find((index) => index > current) ?? positions.length - 1,
    "prev-turn": () => [...turnEnd].reverse().find((index) => index < current) ?? 0,
  };

  function go(name) {
    if (name === "play") return toggle();
    show(moves[name]());
    if (timer !== null) schedule();
  }

  let timer = null;

  function schedule() {
    clearTimeout(timer);
    const perSecond = Number(speedSelect.value) * (byPlayBox.checked ? 2 : 1);
    timer = setTimeout(tick, 1000 / perSecond);
  }

  function tick() {
    if (current >= positions.length - 1) return stop();
    go(byPlayBox.checked ? "next-play" : "next-turn");
    if (current >= positions.length - 1) stop();
  }

  function toggle() {
    if (timer !== null) return stop();
    if (current >= positions.length - 1) show(0);
    timer = 0;
    playButton.textContent = "\u275a\u275a";
    playButton.setAttribute("aria-label", "Pause (Space)");
    playButton.setAttribute("aria-pressed", "true");
    schedule();
  }

  function stop() {
    clearTimeout(timer);
    timer = null;
    playButton.textContent = "\u25b6";
    playButton.setAttribute("aria-label", "Play (Space)");
    playButton.setAttribute("aria-pressed", "false");
  }

  document.querySelectorAll("[data-go]").forEach((button) => {
    button.addEventListener("click", () => go(button.dataset.go));
  });
  slider.addEventListener("input", () => {
    show(turnEnd[Number(slider.value)]);
    if (timer !== null) schedule();
  });
  speedSelect.addEventListener("change", () => timer !== null && schedule());
  // Another script asks for the position after a turn (the analysis chart, a marked turn's link).
  document.addEventListener("replay:goto", (event) => {
    show(turnEnd[Math.max(0, Math.min(Number(event.detail.turn), finalTurn))]);
    if (timer !== null) stop();
  });
  window.addEventListener("hashchange", () => {
    const index = indexOfHash(location.hash);
    if (index !== null && index !== current) show(index, { updateHash: false });
  });

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    const target = event.target;
    const tag = target.tagName;
    // Form fields keep their own keys, except that Space on the turn slider still plays or pauses.
    const slid = target === slider && event.key === " ";
    const field = !slid && (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && target.type !== "button"));
    const keys = {
      ArrowRight: event.shiftKey ? "next-play" : "next-turn",
      ArrowLeft: event.shiftKey ? "prev-play" : "prev-turn",
      Home: "first",
      End: "last",
      " ": "play",
    };
    const name = keys[event.key];
    if (!name || field) return;
    event.preventDefault();
    go(name);
  });

  show(indexOfHash(location.hash) ?? 0, { updateHash: location.hash !== "" });
  performance.mark("replay-drawn"); // the board is in the document; the next mark follows its first paint
  requestAnimationFrame(() => requestAnimationFrame(() => performance.mark("replay-painted")));
})();
