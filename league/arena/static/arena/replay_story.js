// Each turn's own story beside the replay (/games/<id>/): the house expert's analysis (asked for with the Analyse
// button, its progress while a worker runs it, then an evaluation chart, the marked turns, the expert's suggested
// turn on demand and each seat's accuracy), what the visitor's own bots wrote in the turn, and the command that
// replays the game from the turn on the visitor's machine. replay.js tells the position ("replay:position") and
// moves to a turn when asked ("replay:goto").
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const data = JSON.parse($("replay-data").textContent);
  const outputNode = $("replay-output");
  const output = outputNode ? JSON.parse(outputNode.textContent) : {};
  const board = $("replay-board");
  const section = $("replay-analysis");
  const statusText = $("analysis-status");
  const form = $("analysis-form");
  const progress = $("analysis-progress");
  const chart = $("analysis-chart");
  const marksNode = $("analysis-marks");
  const turnAnalysis = $("turn-analysis");
  const turnOutput = $("turn-output");
  const FACE_TO_FACE = data.game === "face-to-face";
  const names = data.seats.map((seat) => seat.short);
  const lastTurn = data.turns.length;
  const POLL_MS = 1000;
  const FIRST_POLL_MS = 250; // a short game's analysis may be done almost at once
  const MARKS = ["inaccuracy", "mistake", "blunder"];
  const PLURALS = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
  const SVG = "http://www.w3.org/2000/svg";

  let position = { t: Number(board.dataset.turn || 0), k: Number(board.dataset.play || 0) };
  let byTurn = new Map(); // turn number -> its figures, once the analysis is done
  let showBest = false;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function svg(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    return node;
  }

  const percent = (value) => `${(100 * value).toFixed(1)}%`;
  const points = (value) => (100 * value).toFixed(1);
  const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

  // --- the local replay command ---------------------------------------------------------------------
  const command = $("replay-command");
  const commandTurn = $("replay-command-turn");
  const copied = $("replay-copied");

  function commandText(turn) {
    const bots = data.seats.map((seat, index) => seat.file || `bot${index}.py`);
    return `python3 -m bots play ${bots.join(" ")} --from ${section.dataset.log} --turn ${turn}`;
  }

  function showCommand() {
    const turn = Math.max(1, Math.min(position.t || 1, lastTurn));
    command.textContent = commandText(turn);
    commandTurn.textContent = `turn ${turn}`;
    command.parentElement.hidden = lastTurn === 0;
  }

  $("replay-copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(command.textContent);
      copied.textContent = "Copied.";
    } catch {
      const range = document.createRange(); // no clipboard (plain http, old browser): select it for Ctrl+C
      range.selectNodeContents(command);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      copied.textContent = "Selected: press Ctrl+C to copy.";
    }
  });

  // --- what the bots wrote in the turn (their owners', or public bots') -----------------------------
  function formatMs(ms) {
    return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
  }

  function showOutput() {
    const records = output[String(position.t)] || [];
    turnOutput.replaceChildren();
    turnOutput.hidden = records.length === 0;
    for (const record of records) {
      const what = position.t === 0 ? "while the game was set up" : `in turn ${position.t}`;
      const head = el("p", "output-head small", `What ${names[record.seat]} wrote ${what}`);
      if (record.ms !== null && record.ms !== undefined) head.append(el("span", "muted", ` · thought ${formatMs(record.ms)}`));
      turnOutput.append(head);
      if (record.stderr) turnOutput.append(el("pre", "output-text", record.stderr));
      else turnOutput.append(el("p", "muted small", record.dropped ? "" : "Nothing."));
      if (record.dropped) {
        turnOutput.append(el("p", "muted small", `${record.dropped} characters not kept: the game's output reached its limit.`));
      }
    }
  }

  // --- the analysis of the turn shown ---------------------------------------------------------------
  function playsOf(text) {
    return text.split(" ").filter(Boolean).map((play) => play.split(">"));
  }

  function playsNode(text, className) {
    const node = el("span", `suggested ${className || ""}`);
    const plays = playsOf(text);
    if (!plays.length) node.append(el("span", "muted", "no card"));
    plays.forEach(([card, pile], index) => {
      node.append(el("span", "playing-card small-card", card), el("span", "small", ` on ${pile}${index < plays.length - 1 ? "," : ""} `));
    });
    return node;
  }

  // The expert's turn drawn on the board: beside each pile it would have played on, the cards it would have put there.
  function drawBestOnBoard(figures) {
    board.querySelectorAll(".expert-play").forEach((node) => node.remove());
    if (!figures || !showBest || figures.best === figures.played) return;
    const byPile = new Map();
    for (const [card, pile] of playsOf(figures.best)) byPile.set(pile, [...(byPile.get(pile) || []), card]);
    for (const [pile, cards] of byPile) {
      const side = board.querySelector(`[data-pile="${CSS.escape(pile)}"] .pile-side`);
      if (!side) continue;
      const note = el("p", "expert-play small", "expert: ");
      cards.forEach((card) => note.append(el("span", "playing-card small-card ghost", card)));
      side.prepend(note);
    }
  }

  // The turn's mark in the move line too, so that stepping through the game shows it without scrolling.
  function markMove(figures) {
    const line = $("replay-move");
    line.querySelectorAll(".mark").forEach((node) => node.remove());
    if (figures && figures.mark) line.append(" ", el("span", `mark mark-${figures.mark}`, figures.mark));
  }

  function showTurnAnalysis() {
    const figures = byTurn.get(position.t);
    drawBestOnBoard(figures);
    markMove(figures);
    turnAnalysis.replaceChildren();
    turnAnalysis.hidden = !figures;
    if (!figures) return;
    const line = el("p", "analysis-line");
    line.append(el("strong", "", `Turn ${figures.turn}, ${names[figures.seat]}: `));
    if (figures.mark) line.append(el("span", `mark mark-${figures.mark}`, figures.mark), " ");
    const whose = FACE_TO_FACE ? "its winning chance" : "the team's winning chance";
    let text = `${whose} ${percent(figures.before)} with the expert's turn, ${percent(figures.after)} after the turn played`;
    if (figures.loss > 0) text += `, ${points(figures.loss)} ± ${points(figures.stderr)} points lost`;
    if (figures.cards_after !== undefined && figures.cards_after !== null) {
      // Face to Face counts the mover's own cards when it loses (0 when it wins), the co-op games the team's.
      const cards = FACE_TO_FACE ? "its cards left at the end (0 if it wins)" : "cards left";
      text += `; ${cards} expected ${figures.cards_after.toFixed(1)} (best ${figures.cards_best.toFixed(1)})`;
      if (figures.cards_loss > 0) text += `, ${figures.cards_loss.toFixed(1)} ± ${figures.cards_stderr.toFixed(1)} more`;
    }
    line.append(`${text}.`);
    turnAnalysis.append(line);
    const same = figures.best === figures.played;
    if (same) {
      turnAnalysis.append(el("p", "small muted", "The expert finds nothing better than the turn played."));
      return;
    }
    const toggle = el("button", "button secondary small-button", showBest ? "Hide the expert's turn" : "Show the expert's turn");
    toggle.type = "button";
    toggle.setAttribute("aria-expanded", String(showBest));
    toggle.addEventListener("click", () => {
      showBest = !showBest;
      showTurnAnalysis();
      turnAnalysis.querySelector("button").focus();
    });
    turnAnalysis.append(toggle);
    if (showBest) {
      const best = el("p", "best-turn small");
      best.append("The expert would play ", playsNode(figures.best, "best"), ` (${percent(figures.best_value)}); played: `);
      best.append(playsNode(figures.played, "played"));
      turnAnalysis.append(best);
    }
  }

  // --- the chart: the evaluation after every turn ---------------------------------------------------
  // The drawing is as wide as its box (at least 320 units), so its labels keep their size on a phone.
  let WIDTH = 640;
  const HEIGHT = 170;
  let drawn = null;
  const PAD = { left: 38, right: 8, top: 10, bottom: 22 };

  function valueOf(figures) {
    // Face to Face: the first seat's winning chance after the turn; co-op: the expected cards left after it.
    if (!FACE_TO_FACE) return figures.cards_after ?? 100 * (1 - figures.after);
    return figures.seat === 0 ? figures.after : 1 - figures.after;
  }

  function drawChart(turns) {
    drawn = turns;
    chart.hidden = false;
    WIDTH = Math.max(320, Math.round(chart.clientWidth || 640));
    const values = turns.map(valueOf);
    const top = FACE_TO_FACE ? 1 : Math.max(1, ...values);
    const x = (turn) => PAD.left + ((WIDTH - PAD.left - PAD.right) * turn) / Math.max(1, lastTurn);
    const y = (value) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - value / top);
    const root = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "chart", role: "group" });
    const title = FACE_TO_FACE
      ? `${names[0]}'s winning chance after each turn (up: ${names[0]}, down: ${names[1]})`
      : "Expected cards left after each turn (lower is better)";
    root.setAttribute("aria-label", `${title}; choose a point to see its turn`);
    const ticks = FACE_TO_FACE ? [0, 0.5, 1] : [0, top / 2, top];
    for (const tick of ticks) {
      root.append(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(tick), y2: y(tick), class: "grid" }));
      const label = svg("text", { x: PAD.left - 4, y: y(tick) + 4, class: "axis", "text-anchor": "end" });
      label.textContent = FACE_TO_FACE ? `${Math.round(100 * tick)}%` : tick.toFixed(top < 10 ? 1 : 0);
      root.append(label);
    }
    const caption = svg("text", { x: PAD.left, y: HEIGHT - 5, class: "axis" });
    caption.textContent = `turn 1 … ${lastTurn}`;
    root.append(caption);
    const first = turns[0];
    const start = first ? (FACE_TO_FACE ? (first.seat === 0 ? first.before : 1 - first.before) : first.cards_before ?? values[0]) : 0;
    const path = [`M${x(0)},${y(start)}`, ...turns.map((figures, index) => `L${x(figures.turn)},${y(values[index])}`)];
    root.append(svg("path", { d: path.join(" "), class: "line" }));
    root.append(svg("line", { x1: x(0), x2: x(0), y1: PAD.top, y2: HEIGHT - PAD.bottom, class: "cursor", id: "chart-cursor" }));
    turns.forEach((figures, index) => {
      const marked = MARKS.includes(figures.mark);
      const dot = svg("circle", {
        cx: x(figures.turn),
        cy: y(values[index]),
        r: marked ? 5.5 : 3,
        class: `point${marked ? ` mark-${figures.mark}` : ""}`,
        "data-turn": figures.turn,
      });
      const tip = svg("title");
      tip.textContent = `Turn ${figures.turn}, ${names[figures.seat]}${figures.mark ? `: ${figures.mark}, ${points(figures.loss)} points lost` : ""}`;
      dot.append(tip);
      dot.addEventListener("click", () => goTo(figures.turn));
      root.append(dot);
    });
    const legend = el("p", "small muted chart-legend", `${title}. Click a point to go to its turn.`);
    chart.replaceChildren(root, legend);
    moveCursor();
  }

  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => drawn && Math.round(chart.clientWidth) !== WIDTH && drawChart(drawn), 150);
  });

  function moveCursor() {
    const cursor = $("chart-cursor");
    if (!cursor) return;
    const at = PAD.left + ((WIDTH - PAD.left - PAD.right) * position.t) / Math.max(1, lastTurn);
    cursor.setAttribute("x1", String(at));
    cursor.setAttribute("x2", String(at));
  }

  function goTo(turn) {
    document.dispatchEvent(new CustomEvent("replay:goto", { detail: { turn } }));
  }

  function drawMarks(turns) {
    const marked = turns.filter((figures) => figures.mark);
    marksNode.replaceChildren();
    marksNode.hidden = false;
    if (!marked.length) {
      marksNode.append(el("p", "small", "No turn is marked: nothing played cost a clear share of the game."));
      return;
    }
    marksNode.append(el("h3", "", "Marked turns"));
    const list = el("ul", "marks-list");
    for (const figures of marked) {
      const item = el("li");
      const button = el("button", `mark-link mark-${figures.mark}`);
      button.type = "button";
      button.append(el("span", `mark mark-${figures.mark}`, figures.mark), ` turn ${figures.turn} · ${names[figures.seat]} · −${points(figures.loss)}`);
      button.addEventListener("click", () => goTo(figures.turn));
      item.append(button);
      list.append(item);
    }
    marksNode.append(list);
  }

  function showAccuracy(accuracy) {
    document.querySelectorAll("[data-accuracy-seat]").forEach((node) => {
      const value = accuracy ? accuracy[node.dataset.accuracySeat] : null;
      node.hidden = value === null || value === undefined;
      node.textContent = node.hidden ? "" : `accuracy ${value.toFixed(1)}%`;
    });
  }

  // --- asking, following the progress, showing the result -------------------------------------------
  let pollTimer = null;

  function summary(turns) {
    const counts = MARKS.map((mark) => [mark, turns.filter((figures) => figures.mark === mark).length]);
    const named = counts.filter(([, count]) => count).map(([mark, count]) => `${count} ${count === 1 ? mark : PLURALS[mark]}`);
    return named.length ? named.join(", ") : "no marked turn";
  }

  function handle(analysis) {
    clearTimeout(pollTimer);
    if (form) form.hidden = analysis.status !== "failed";
    if (analysis.status === "queued" || analysis.status === "running") {
      progress.hidden = false;
      progress.max = Math.max(1, analysis.turns_total);
      progress.value = analysis.turns_done;
      progress.textContent = `${analysis.turns_done} of ${analysis.turns_total} turns`;
      statusText.textContent =
        analysis.status === "queued"
          ? "Waiting for a worker: analyses run when the league's matches leave room."
          : `Analysing: ${analysis.turns_done} of ${plural(analysis.turns_total, "turn")} done.`;
      pollTimer = setTimeout(load, analysis.turns_done ? POLL_MS : FIRST_POLL_MS);
      return;
    }
    progress.hidden = true;
    if (analysis.status === "failed") {
      statusText.textContent = `The analysis failed: ${analysis.error || "no reason given"}. You may ask again.`;
      return;
    }
    const turns = analysis.turns || [];
    byTurn = new Map(turns.map((figures) => [figures.turn, figures]));
    statusText.textContent = `Analysed at up to ${analysis.rollouts} rollouts a turn: ${summary(turns)}.`;
    showAccuracy(analysis.accuracy);
    drawChart(turns);
    drawMarks(turns);
    showTurnAnalysis();
  }

  async function load() {
    try {
      const response = await fetch(section.dataset.url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
      if (response.status === 404) return;
      const body = await response.json();
      if (response.ok) handle(body);
      else statusText.textContent = body.error ? body.error.message : `The analysis could not be read (${response.status}).`;
    } catch {
      statusText.textContent = "The analysis could not be read: the server did not answer. Reload to try again.";
    }
  }

  if (form) {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const token = form.querySelector("[name=csrfmiddlewaretoken]").value;
      const button = $("analysis-ask");
      button.disabled = true;
      statusText.textContent = "Asking…";
      try {
        const response = await fetch(form.action, {
          method: "POST",
          headers: { Accept: "application/json", "X-CSRFToken": token },
          credentials: "same-origin",
        });
        const body = await response.json();
        if (response.ok) handle(body);
        else statusText.textContent = body.error ? body.error.message : `Asking failed (${response.status}).`;
      } catch {
        statusText.textContent = "Asking failed: the server did not answer. Try again.";
      } finally {
        button.disabled = false;
      }
    });
  }

  // --- following the replay -------------------------------------------------------------------------
  function follow() {
    showCommand();
    showOutput();
    showTurnAnalysis();
    moveCursor();
  }

  document.addEventListener("replay:position", (event) => {
    if (event.detail.t !== position.t) showBest = false;
    position = event.detail;
    follow();
  });

  follow();
  load();
})();
