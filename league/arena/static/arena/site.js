// Parts marked data-live-url refresh themselves while they say data-live="on" (a validation running, a tournament
// counting down or running, the unread notifications); the fresh copy says whether to go on. A hidden tab asks nothing.
function arenaLive(part) {
  if (part.dataset.live !== "on") return;
  setTimeout(async () => {
    if (document.hidden) { arenaLive(part); return; }
    try {
      const response = await fetch(part.dataset.liveUrl, {headers: {"X-Requested-With": "fetch"}});
      if (response.ok) {
        const fresh = document.createElement("div");
        fresh.innerHTML = await response.text();
        const next = fresh.firstElementChild;
        if (!next) { arenaLive(part); return; }
        part.replaceWith(next);
        part = next;
        arenaEnhance(part);
      }
    } catch (error) { /* offline for a moment: try again */ }
    arenaLive(part);
  }, Number(part.dataset.liveEvery || 2000));
}
// <time data-countdown> counts down to its datetime: "2 min 05 s".
function arenaCountdown(clock) {
  const tick = () => {
    if (!clock.isConnected) return;
    const left = Math.round((Date.parse(clock.dateTime) - Date.now()) / 1000);
    if (left <= 0) { clock.textContent = "any moment now"; return; }
    const [h, m, s] = [Math.floor(left / 3600), Math.floor(left / 60) % 60, left % 60];
    clock.textContent = (h ? h + " h " : "") + (h || m ? m + " min " : "") + String(s).padStart(h || m ? 2 : 1, "0") + " s";
    setTimeout(tick, 1000 - (Date.now() % 1000));
  };
  tick();
}
// A table too wide for its box gets keyboard scrolling and a hint under it.
function arenaEnhance(root) {
  root.querySelectorAll("time[data-countdown]").forEach(arenaCountdown);
  root.querySelectorAll(".table-wrap").forEach((wrap) => {
    const overflows = wrap.scrollWidth > wrap.clientWidth + 1;
    const hint = wrap.nextElementSibling && wrap.nextElementSibling.classList.contains("scroll-hint") ? wrap.nextElementSibling : null;
    if (overflows && !hint) {
      wrap.tabIndex = 0; wrap.setAttribute("role", "region"); wrap.setAttribute("aria-label", "table, scrolls sideways");
      wrap.insertAdjacentHTML("afterend", '<p class="scroll-hint" aria-hidden="true">more columns: scroll sideways →</p>');
    } else if (!overflows && hint) {
      hint.remove(); wrap.removeAttribute("tabindex"); wrap.removeAttribute("role"); wrap.removeAttribute("aria-label");
    }
  });
}
arenaEnhance(document);
window.addEventListener("resize", () => arenaEnhance(document));
document.querySelectorAll("[data-live-url]").forEach(arenaLive);
