/// The live view's page: one HTML document with its style and script inline, built into the binary (no file to
/// install, no framework, nothing fetched from elsewhere). It reads `/api/live/history` once and then the Server-Sent
/// Events of `/api/live/events`, and posts control requests with the token of its own URL. OpenHealthKit.
///
/// Laid out for a glance from the saddle: the heart rate in its zone's colour and the power biggest, then cadence,
/// speed and the times, the time in each zone as bars, the last five minutes of heart rate and power as a graph,
/// the trainer's target, the sensors. The grid turns from two columns (landscape) to one (portrait, a phone); sizes
/// follow the screen's smaller side, so a 10-inch tablet is readable at 3 m.
enum LivePage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Workout – live</title>
        <style>
        :root { --bg: #101418; --tile: #1c232b; --text: #f1f3f5; --dim: #9aa5b1; --hr: #ff6b6b; --power: #ffd43b;
          --z1: #5c6b7a; --z2: #1c7ed6; --z3: #2b8a3e; --z4: #e8590c; --z5: #c92a2a; }
        * { box-sizing: border-box; }
        html, body { margin: 0; background: var(--bg); color: var(--text);
          font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
        body { display: grid; gap: 1.2vmin; padding: 1.2vmin; min-height: 100vh;
          grid-template-columns: 1fr 1fr;
          grid-template-areas: "head head" "hr power" "small small" "zones graph" "controls graph" "sensors sensors";
          grid-template-rows: auto auto auto 1fr auto auto; }
        @media (orientation: portrait) {
          body { grid-template-columns: 1fr;
            grid-template-areas: "head" "hr" "power" "small" "zones" "graph" "controls" "sensors";
            grid-template-rows: auto auto auto auto auto minmax(16vh, 1fr) auto auto; }
        }
        .tile { background: var(--tile); border-radius: 1.2vmin; padding: 1vmin 1.6vmin; min-width: 0; }
        .label { color: var(--dim); font-size: max(2.6vmin, 12px); text-transform: uppercase; letter-spacing: .08em; }
        .big { font-size: min(19vmin, 11rem); font-weight: 700; line-height: 1; font-variant-numeric: tabular-nums; }
        .mid { font-size: min(8.5vmin, 5rem); font-weight: 650; line-height: 1.05; font-variant-numeric: tabular-nums; }
        .unit { font-size: max(3.4vmin, 14px); color: var(--dim); font-weight: 400; margin-left: .4em; }
        header { grid-area: head; display: flex; flex-wrap: wrap; align-items: baseline; gap: 0 3vmin;
          font-size: max(3.6vmin, 15px); }
        header .grow { flex: 1; }
        #state { padding: .1em .6em; border-radius: 1em; background: #2b8a3e; font-size: .8em; }
        #state.paused { background: #e67700; } #state.gone { background: #495057; }
        #hr { grid-area: hr; } #power { grid-area: power; }
        #hr .zone { font-size: min(7vmin, 4rem); font-weight: 700; float: right; }
        #hr.zoned .label, #hr.zoned .unit { color: rgba(255, 255, 255, .85); }
        #power .sub { font-size: min(5.5vmin, 3rem); color: var(--dim); font-variant-numeric: tabular-nums; }
        #small { grid-area: small; display: flex; flex-wrap: wrap; gap: 1.2vmin; }
        #small .tile { flex: 1 1 20%; }
        @media (orientation: portrait) { #small .tile { flex-basis: 40%; } }
        #zones { grid-area: zones; }
        #zones { display: flex; flex-direction: column; }
        .zonebars { display: flex; gap: .6vmin; align-items: flex-end; flex: 1; min-height: min(14vmin, 9rem);
          margin-top: .8vmin; }
        .zonebar { flex: 1; display: flex; flex-direction: column; justify-content: flex-end; align-items: center;
          align-self: stretch; font-size: max(2.6vmin, 12px); color: var(--dim); }
        .zonebar div { width: 100%; border-radius: .5vmin .5vmin 0 0; min-height: 2px; }
        .zonebar.current { color: var(--text); font-weight: 700; }
        #graph { grid-area: graph; display: flex; flex-direction: column; min-height: 20vh; }
        #graph svg { flex: 1 1 0; width: 100%; min-height: 10vh; }
        .legend { font-size: max(2.4vmin, 11px); color: var(--dim); }
        .legend b.hr { color: var(--hr); } .legend b.power { color: var(--power); }
        #controls { grid-area: controls; display: flex; flex-wrap: wrap; gap: 1.2vmin; align-items: center; }
        button { font: inherit; font-size: max(4vmin, 18px); padding: .35em .9em; border-radius: .5em; border: 0;
          background: #364fc7; color: #fff; cursor: pointer; touch-action: manipulation; }
        button.secondary { background: #495057; }
        button:disabled { opacity: .4; }
        #trainer { font-size: max(3.6vmin, 15px); }
        #trainer .target { font-size: min(8vmin, 4.5rem); font-weight: 700; font-variant-numeric: tabular-nums; }
        #sensors { grid-area: sensors; display: flex; flex-wrap: wrap; gap: .6vmin 3vmin; font-size: max(2.8vmin, 13px); }
        .dot { display: inline-block; width: .8em; height: .8em; border-radius: 50%; margin-right: .4em; background: #2f9e44; }
        .dot.lost, .dot.reconnecting { background: #f03e3e; } .dot.connecting { background: #fab005; }
        #message { color: #ffa8a8; }
        .hidden { display: none !important; }
        @media (orientation: portrait) {
          .big { font-size: min(14vmin, 11rem); } .mid { font-size: min(7.5vmin, 5rem); }
          .zonebars { min-height: 9vmin; }
        }
        </style>
        </head>
        <body data-updates="0">
        <header>
          <span id="activity">–</span><span id="state">connecting</span>
          <span>lap <b id="lap">–</b> <span id="lapTime">–</span></span>
          <span class="grow"></span><span id="message"></span>
        </header>
        <section id="hr" class="tile"><span class="zone" id="zone"></span>
          <div class="label">heart rate</div><div><span class="big" id="heartRate">–</span><span class="unit">bpm</span></div></section>
        <section id="power" class="tile"><div class="label">power</div>
          <div><span class="big" id="powerNow">–</span><span class="unit">W</span></div>
          <div class="sub">3 s <span id="power3s">–</span> W</div></section>
        <section id="small">
          <div class="tile" id="cadenceTile"><div class="label">cadence</div>
            <span class="mid" id="cadence">–</span><span class="unit" id="cadenceUnit">rpm</span></div>
          <div class="tile" id="speedTile"><div class="label">speed</div>
            <span class="mid" id="speed">–</span><span class="unit">km/h</span></div>
          <div class="tile"><div class="label">moving</div><span class="mid" id="moving">–</span></div>
          <div class="tile"><div class="label">elapsed</div><span class="mid" id="elapsed">–</span></div>
        </section>
        <section id="zones" class="tile"><div class="label">time in heart-rate zones</div><div class="zonebars" id="zoneBars"></div></section>
        <section id="graph" class="tile"><div class="legend"><span id="span">last 5 minutes</span> · <b class="hr">heart rate</b> · <b class="power">power</b></div>
          <svg id="chart" viewBox="0 0 600 200" preserveAspectRatio="none" aria-label="heart rate and power">
            <polyline id="powerLine" fill="none" stroke="#ffd43b" stroke-width="2.5" vector-effect="non-scaling-stroke"/>
            <polyline id="hrLine" fill="none" stroke="#ff6b6b" stroke-width="3" vector-effect="non-scaling-stroke"/>
          </svg></section>
        <section id="plan" class="tile hidden"><span id="planText"></span></section>
        <section id="controls" class="tile">
          <button id="pauseButton">Pause</button><button id="lapButton" class="secondary">Lap</button>
          <span id="trainer" class="hidden"><span id="trainerText"></span>
            <button id="lowerButton" class="secondary">−</button><button id="raiseButton" class="secondary">+</button></span>
          <span id="noToken" class="legend hidden">Open the URL with its token to pause, lap or set a target.</span>
        </section>
        <section id="sensors" class="tile"></section>
        <script>
        "use strict";
        const $ = (id) => document.getElementById(id);
        const token = new URLSearchParams(location.search).get("token");
        const query = token ? "?token=" + encodeURIComponent(token) : "";
        const zoneColours = ["var(--z1)", "var(--z2)", "var(--z3)", "var(--z4)", "var(--z5)"];
        const zoneColour = (i) => zoneColours[Math.min(i, zoneColours.length - 1)];
        let points = [];
        let last = null;
        let updates = 0;
        const pad = (n) => String(n).padStart(2, "0");
        function duration(seconds) {
          const s = Math.max(0, Math.floor(seconds)), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
          return h > 0 ? h + ":" + pad(m) + ":" + pad(s % 60) : m + ":" + pad(s % 60);
        }
        const whole = (v) => (v === undefined || v === null) ? "–" : String(Math.round(v));
        function render(s) {
          last = s;
          $("activity").textContent = s.activity;
          $("state").textContent = s.paused ? "paused" : "live";
          $("state").className = s.paused ? "paused" : "";
          $("pauseButton").textContent = s.paused ? "Resume" : "Pause";
          $("lap").textContent = s.laps + 1;
          $("lapTime").textContent = duration(s.lapSeconds);
          $("heartRate").textContent = whole(s.heartRate);
          const zone = s.heartRateZones.current;
          $("zone").textContent = (zone === undefined || zone === null) ? "" : "Z" + (zone + 1);
          $("hr").style.background = (zone === undefined || zone === null) ? "" : zoneColour(zone);
          $("hr").classList.toggle("zoned", zone !== undefined && zone !== null);
          $("power").classList.toggle("hidden", !s.showsPower);
          $("powerNow").textContent = whole(s.power);
          $("power3s").textContent = whole(s.power3s);
          $("cadenceTile").classList.toggle("hidden", !s.showsCadence);
          $("cadence").textContent = whole(s.cadence);
          $("cadenceUnit").textContent = s.cadenceUnit;
          $("speedTile").classList.toggle("hidden", !s.showsSpeed);
          $("speed").textContent = (s.speed === undefined) ? "–" : (s.speed * 3.6).toFixed(1);
          $("moving").textContent = duration(s.movingSeconds);
          $("elapsed").textContent = duration(s.elapsedSeconds);
          renderZones(s.heartRateZones);
          renderSensors(s.sensors);
          renderTrainers(s);
          renderPlan(s.plan);
          const point = [s.elapsedSeconds, s.heartRate ?? null, s.power ?? null];
          if (points.length && point[0] < points[points.length - 1][0]) points = [];
          if (!points.length || point[0] >= points[points.length - 1][0] + 1) points.push(point);
          renderGraph();
          updates += 1;
          document.body.dataset.updates = updates;
        }
        function renderZones(zones) {
          const bars = $("zoneBars");
          const seconds = zones.seconds || [];
          const longest = Math.max(1, ...seconds);
          bars.replaceChildren(...seconds.map((t, i) => {
            const bar = document.createElement("div");
            bar.className = "zonebar" + (i === zones.current ? " current" : "");
            const fill = document.createElement("div");
            fill.style.height = (100 * t / longest) * 0.8 + "%";
            fill.style.background = zoneColour(i);
            const label = document.createElement("span");
            label.textContent = "Z" + (i + 1) + " " + duration(t);
            bar.append(fill, label);
            return bar;
          }));
        }
        function renderSensors(sensors) {
          $("sensors").replaceChildren(...sensors.map((sensor) => {
            const item = document.createElement("span");
            const dot = document.createElement("span");
            dot.className = "dot " + sensor.connection;
            let text = sensor.name + "  " + sensor.state;
            if (sensor.battery !== undefined) text += " · battery " + sensor.battery + " %";
            if (sensor.skinContact !== undefined) text += " · skin contact " + (sensor.skinContact ? "yes" : "no");
            item.append(dot, document.createTextNode(text));
            return item;
          }));
        }
        function renderTrainers(s) {
          const trainers = s.trainers || [];
          $("trainer").classList.toggle("hidden", trainers.length === 0 && !s.trainerNotice);
          const words = trainers.map((t) => {
            if (t.refusedControl) return t.name + ": refused control (" + t.refusedControl + ")";
            let line = t.name + ": ";
            if (t.targetPower !== undefined) {
              line += "ERG " + t.targetPower + " W";
              if (t.requestedTargetPower !== undefined && t.requestedTargetPower !== t.targetPower)
                line += ", " + t.requestedTargetPower + " W asked";
            } else if (t.requestedTargetPower !== undefined) line += "ERG " + t.requestedTargetPower + " W asked";
            else line += "no target";
            return line + (t.error ? " – " + t.error : "");
          });
          if (s.trainerNotice) words.push(s.trainerNotice);
          $("trainerText").textContent = words.join("; ") + " ";
          for (const id of ["lowerButton", "raiseButton"]) $(id).classList.toggle("hidden", trainers.length === 0);
        }
        function renderPlan(plan) {
          $("plan").classList.toggle("hidden", !plan);
          if (!plan) return;
          if (plan.finished) { $("planText").textContent = "plan done"; return; }
          const parts = ["step " + plan.step + "/" + plan.steps + " " + plan.name];
          parts.push(plan.targetPower === undefined ? "no target" : "target " + whole(plan.targetPower) + " W");
          if (plan.averagePower !== undefined) parts.push("step avg " + whole(plan.averagePower) + " W");
          if (plan.secondsLeft !== undefined) parts.push("left " + duration(plan.secondsLeft));
          else if (plan.metresLeft !== undefined) parts.push("left " + (plan.metresLeft / 1000).toFixed(2) + " km");
          else if (plan.kilocaloriesLeft !== undefined) parts.push("left " + whole(plan.kilocaloriesLeft) + " kcal");
          if (plan.next !== undefined) parts.push("next " + plan.next);
          if (plan.shiftPercent) parts.push("power " + (plan.shiftPercent > 0 ? "+" : "") + plan.shiftPercent + " %");
          if (plan.notice) parts.push(plan.notice);
          $("planText").textContent = parts.join(" · ");
        }
        function renderGraph() {
          // The last five minutes; less at the start, so that the first minute fills the width.
          const end = points.length ? points[points.length - 1][0] : 0;
          const span = Math.min(300, Math.max(60, end));
          const shown = points.filter((p) => p[0] >= end - span);
          $("span").textContent = span >= 300 ? "last 5 minutes" : "last " + duration(span);
          const x = (t) => (600 * (t - (end - span)) / span).toFixed(1);
          const hrs = shown.map((p) => p[1]).filter((v) => v !== null);
          const lo = Math.min(60, ...hrs) - 5, hi = Math.max(180, ...hrs) + 5;
          const watts = shown.map((p) => p[2]).filter((v) => v !== null);
          const top = Math.max(300, ...watts) * 1.1;
          const line = (index, y) => shown.filter((p) => p[index] !== null)
            .map((p) => x(p[0]) + "," + y(p[index]).toFixed(1)).join(" ");
          $("hrLine").setAttribute("points", line(1, (v) => 200 - 200 * (v - lo) / (hi - lo)));
          $("powerLine").setAttribute("points", line(2, (v) => 200 - 200 * v / top));
        }
        async function control(action) {
          const response = await fetch("/api/control" + query, {
            method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ action }) });
          $("message").textContent = response.ok ? "" : await response.text();
        }
        $("pauseButton").onclick = () => control(last && last.paused ? "resume" : "pause");
        $("lapButton").onclick = () => control("lap");
        $("raiseButton").onclick = () => control("raiseTarget");
        $("lowerButton").onclick = () => control("lowerTarget");
        if (!token) {
          for (const id of ["pauseButton", "lapButton", "raiseButton", "lowerButton"]) $(id).disabled = true;
          $("noToken").classList.remove("hidden");
        }
        fetch("/api/live/history" + query).then((r) => r.ok ? r.json() : { points: [] }).then((h) => {
          const later = points;
          points = h.points.concat(later.filter((p) => !h.points.length || p[0] > h.points[h.points.length - 1][0]));
          renderGraph();
        }).catch(() => {});
        const events = new EventSource("/api/live/events" + query);
        events.onmessage = (e) => { $("message").textContent = ""; render(JSON.parse(e.data)); };
        events.onerror = () => { if (events.readyState !== EventSource.CLOSED) $("message").textContent = "reconnecting…"; };
        for (const name of ["end", "dropped"]) {
          events.addEventListener(name, (e) => {
            events.close();
            $("state").textContent = name === "end" ? "ended" : "dropped";
            $("state").className = "gone";
            $("message").textContent = JSON.parse(e.data);
          });
        }
        </script>
        </body>
        </html>
        """#
}
