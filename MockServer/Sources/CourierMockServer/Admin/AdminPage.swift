/// The live journal page at `GET /__admin/ui`: one HTML document with its
/// styles and script inline — no build step, no external assets — that polls
/// the admin API (`/__admin/requests?since=`, `/__admin/mappings`) and shows
/// each exchange as it arrives: the stub it matched or the near misses and
/// the matchers that failed, the fault, connection and exchange index,
/// timings, headers and bodies (JSON pretty-printed, binary as size and a
/// hex head); filters by stub, status and path; the loaded stubs with hit
/// counts, `required` stubs not hit marked. Served under the same
/// loopback-only rule as the rest of the admin API.
enum AdminPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>courier-mock · journal</title>
        <link rel="icon" href="data:,">
        <style>
          body { font: 13px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
          header { padding: 10px 16px; background: #1d2330; color: #fff; display: flex; gap: 16px; align-items: center; }
          header h1 { font-size: 15px; margin: 0; font-weight: 600; }
          header .live { color: #7ee08a; }
          .filters { display: flex; gap: 8px; padding: 8px 16px; background: #e9ecf1; }
          .filters input { padding: 3px 6px; border: 1px solid #c3c9d4; border-radius: 4px; width: 160px; }
          main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; padding: 12px 16px; }
          table { width: 100%; border-collapse: collapse; background: #fff; }
          th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid #e3e6ec; white-space: nowrap; }
          th { background: #f0f2f5; font-weight: 600; }
          tr.row { cursor: pointer; }
          tr.row:hover, tr.row.selected { background: #eef4ff; }
          tr.unmatched td { color: #b3261e; }
          .tag { display: inline-block; padding: 0 6px; border-radius: 8px; background: #e3e6ec; }
          .fault { background: #ffe2c2; }
          .finding { background: #fde2e1; }
          .tls { background: #dff3e4; }
          .finding-line { color: #b3261e; margin: 2px 0; }
          .finding-line code { color: #1f2430; background: #f6f7f9; padding: 0 3px; }
          section.panel { background: #fff; padding: 8px 12px; margin-bottom: 12px; border: 1px solid #e3e6ec; }
          section.panel h2 { font-size: 13px; margin: 4px 0 8px; }
          pre { background: #f6f7f9; padding: 6px; overflow: auto; max-height: 260px; margin: 4px 0; }
          .near-miss { color: #b3261e; }
          .missed-required { color: #b3261e; font-weight: 600; }
          .empty { color: #6b7383; padding: 12px; }
          .websocket { background: #dff3e4; }
          table.frames td { font-family: ui-monospace, monospace; font-size: 12px; }
          tr.ws-in td:first-child { color: #1f5fbf; }
          tr.ws-out td:first-child { color: #1b7f3b; }
          tr.ws-close td { font-weight: 600; }
        </style>
        </head>
        <body>
        <header><h1>courier-mock · journal</h1><span class="live" id="status">connecting…</span><span id="count"></span></header>
        <div class="filters">
          <input id="filter-stub" placeholder="stub" aria-label="filter by stub">
          <input id="filter-status" placeholder="status (e.g. 404, 5xx)" aria-label="filter by status">
          <input id="filter-path" placeholder="path contains" aria-label="filter by path">
        </div>
        <main>
          <div>
            <table id="requests">
              <thead><tr><th>#</th><th>method</th><th>path</th><th>status</th><th>stub</th><th>operation</th><th>fault</th><th>protocol</th><th>conn/ex</th><th>ms</th></tr></thead>
              <tbody></tbody>
            </table>
            <div class="empty" id="no-requests">No requests yet.</div>
          </div>
          <div>
            <section class="panel" id="detail"><h2>Exchange</h2><div class="empty">Select a request.</div></section>
            <section class="panel"><h2>Stubs</h2><table id="stubs"><thead><tr><th>stub</th><th>request</th><th>hits</th></tr></thead><tbody></tbody></table></section>
          </div>
        </main>
        <script>
        "use strict";
        const entries = new Map();
        let since = 0;
        let selected = null;
        const $ = (id) => document.getElementById(id);
        const text = (value) => document.createTextNode(value == null ? "" : String(value));
        function cell(row, value, className) {
          const td = document.createElement("td");
          if (className) { const span = document.createElement("span"); span.className = className; span.appendChild(text(value)); td.appendChild(span); }
          else td.appendChild(text(value));
          row.appendChild(td);
        }
        function path(entry) { return entry.uri.split("?")[0]; }
        function millis(entry) {
          const t = entry.timestamps;
          return t.responseEnd != null ? ((t.responseEnd - t.firstByte) / 1e6).toFixed(1) : "…";
        }
        function visible(entry) {
          const stub = $("filter-stub").value.trim(), status = $("filter-status").value.trim(), p = $("filter-path").value.trim();
          if (stub && !(entry.stubID || entry.builtinRoute || "").includes(stub)) return false;
          if (p && !path(entry).includes(p)) return false;
          if (status) {
            const code = String(entry.status ?? "");
            if (/^\dxx$/i.test(status) ? code[0] !== status[0] : code !== status) return false;
          }
          return true;
        }
        function render() {
          const body = $("requests").tBodies[0];
          body.replaceChildren();
          const shown = [...entries.values()].filter(visible).sort((a, b) => b.sequence - a.sequence);
          for (const entry of shown) {
            const row = document.createElement("tr");
            row.className = "row" + (entry.unmatched ? " unmatched" : "") + (entry.sequence === selected ? " selected" : "");
            row.dataset.seq = entry.sequence;
            cell(row, entry.sequence); cell(row, entry.method); cell(row, path(entry)); cell(row, entry.status ?? "—");
            cell(row, entry.stubID || (entry.builtinRoute ? "built-in " + entry.builtinRoute : "no match"));
            cell(row, entry.operationID || "");
            const frames = entry.webSocketFrames || (entry.status === 101 ? [] : null);
            cell(row, entry.findings ? entry.findings.length + (entry.findings.length === 1 ? " finding" : " findings")
              : frames ? "WebSocket · " + frames.length + (frames.length === 1 ? " frame" : " frames") : (entry.fault || ""),
              entry.findings ? "tag finding" : frames ? "tag websocket" : entry.fault ? "tag fault" : null);
            cell(row, (entry.version || "") + (entry.tls ? " · TLS" : ""), entry.tls ? "tag tls" : null);
            cell(row, entry.connectionIndex + "/" + entry.exchangeIndex); cell(row, millis(entry));
            row.addEventListener("click", () => { selected = entry.sequence; render(); });
            body.appendChild(row);
          }
          $("no-requests").style.display = shown.length ? "none" : "block";
          $("count").textContent = entries.size + " requests";
          renderDetail();
        }
        function bodyBlock(textBody, base64Body, headers) {
          const pre = document.createElement("pre");
          if (base64Body) {
            const bytes = Uint8Array.from(atob(base64Body), (c) => c.charCodeAt(0));
            const hex = [...bytes.slice(0, 64)].map((b) => b.toString(16).padStart(2, "0")).join(" ");
            pre.textContent = bytes.length + " bytes (binary): " + hex + (bytes.length > 64 ? " …" : "");
          } else if (textBody) {
            const type = (headers || []).find((h) => h.name.toLowerCase() === "content-type");
            let shown = textBody;
            if (!type || type.value.includes("json")) { try { shown = JSON.stringify(JSON.parse(textBody), null, 2); } catch (e) {} }
            pre.textContent = shown;
          } else { pre.textContent = "(no body)"; }
          return pre;
        }
        function headerBlock(headers) {
          const pre = document.createElement("pre");
          pre.textContent = (headers || []).map((h) => h.name + ": " + h.value).join("\n") || "(no headers)";
          return pre;
        }
        function heading(panel, label) { const h = document.createElement("h2"); h.textContent = label; panel.appendChild(h); }
        function renderDetail() {
          const panel = $("detail");
          const entry = entries.get(selected);
          if (!entry) return;
          panel.replaceChildren();
          heading(panel, "#" + entry.sequence + " " + entry.method + " " + entry.uri);
          const facts = document.createElement("div");
          facts.textContent = "stub: " + (entry.stubID || "none") + " · status: " + (entry.status ?? "none") +
            " · connection " + entry.connectionIndex + ", exchange " + entry.exchangeIndex +
            (entry.fault ? " · fault: " + entry.fault : "") + (entry.delayMs ? " · delay " + entry.delayMs + " ms" : "") +
            " · " + millis(entry) + " ms · " + entry.bytesWritten + " bytes written";
          panel.appendChild(facts);
          if (entry.operationID) {
            const operation = document.createElement("div");
            operation.textContent = "OpenAPI operation: " + entry.operationID;
            panel.appendChild(operation);
          }
          if (entry.findings) {
            heading(panel, "OpenAPI findings");
            for (const finding of entry.findings) {
              const line = document.createElement("div");
              line.className = "finding-line";
              const rule = document.createElement("code"); rule.textContent = finding.rule;
              const pointer = document.createElement("code"); pointer.textContent = finding.pointer || "/";
              line.append(rule, " at ", pointer, ": " + finding.message + (finding.source ? " (" + finding.source + ")" : ""));
              panel.appendChild(line);
            }
          }
          if (entry.nearMisses) {
            heading(panel, "Near misses");
            if (!entry.nearMisses.length) { const p = document.createElement("div"); p.className = "near-miss"; p.textContent = "no stub came close"; panel.appendChild(p); }
            for (const miss of entry.nearMisses) {
              const p = document.createElement("div");
              p.className = "near-miss";
              p.textContent = miss.stubID + ": " + miss.failed.map((f) => f.matcher + " (was " + JSON.stringify(f.actual) + ")").join("; ");
              panel.appendChild(p);
            }
          }
          heading(panel, "Request headers"); panel.appendChild(headerBlock(entry.headers));
          heading(panel, "Request body"); panel.appendChild(bodyBlock(entry.body, entry.bodyBase64, entry.headers));
          if (entry.response) {
            heading(panel, "Response headers"); panel.appendChild(headerBlock(entry.response.headers));
            heading(panel, "Response body");
            panel.appendChild(entry.response.bodySize == null ? Object.assign(document.createElement("pre"), { textContent: "(streamed)" })
              : bodyBlock(entry.response.body, entry.response.bodyBase64, entry.response.headers));
          }
          if (entry.status === 101) panel.appendChild(framesBlock(panel, entry));
          const t = entry.timestamps;
          heading(panel, "Timings (ms since the server started)");
          const pre = document.createElement("pre");
          pre.textContent = Object.entries(t).map(([k, v]) => k + ": " + (v == null ? "—" : (v / 1e6).toFixed(3))).join("\n");
          panel.appendChild(pre);
        }
        // A WebSocket's frames, oldest first, each with who said it.
        function framesBlock(panel, entry) {
          const frames = entry.webSocketFrames || [];
          heading(panel, "WebSocket frames (" + frames.length + (entry.webSocketFramesDropped ? ", " + entry.webSocketFramesDropped + " more not kept" : "") + ")");
          const table = document.createElement("table");
          table.className = "frames";
          const start = frames.length ? frames[0].at : 0;
          for (const frame of frames) {
            const row = document.createElement("tr");
            row.className = "ws-frame ws-" + frame.direction + (frame.opcode === "close" ? " ws-close" : "");
            cell(row, frame.direction === "in" ? "from client" : "from server");
            cell(row, frame.opcode + (frame.fin ? "" : " (more)"));
            cell(row, frame.length + " B");
            cell(row, frame.closeCode != null ? frame.closeCode + (frame.text ? " " + frame.text : "") : (frame.text ?? ""));
            cell(row, "+" + ((frame.at - start) / 1e6).toFixed(1) + " ms");
            table.appendChild(row);
          }
          return table;
        }
        // The selected WebSocket exchange is read again while it is open: its frames arrive after its row.
        async function pollSelectedWebSocket() {
          const entry = entries.get(selected);
          if (!entry || entry.status !== 101) return;
          const closed = (direction) => (entry.webSocketFrames || []).some((f) => f.direction === direction && f.opcode === "close");
          if (closed("in") && closed("out")) return;
          const response = await fetch("/__admin/requests?sequence=" + entry.sequence, { cache: "no-store" });
          const [fresh] = (await response.json()).requests;
          if (fresh && JSON.stringify(fresh.webSocketFrames) !== JSON.stringify(entry.webSocketFrames)) {
            entries.set(fresh.sequence, Object.assign(entry, { webSocketFrames: fresh.webSocketFrames,
              webSocketFramesDropped: fresh.webSocketFramesDropped }));
            render();
          }
        }
        async function pollRequests() {
          const response = await fetch("/__admin/requests?responseBodies=1&since=" + since, { cache: "no-store" });
          const page = await response.json();
          for (const entry of page.requests) { entries.set(entry.sequence, entry); since = Math.max(since, entry.sequence); }
          if (selected == null && page.requests.length) selected = page.requests[page.requests.length - 1].sequence;
          if (page.requests.length) render();
        }
        async function pollStubs() {
          const response = await fetch("/__admin/mappings", { cache: "no-store" });
          const body = $("stubs").tBodies[0];
          body.replaceChildren();
          for (const stub of (await response.json()).mappings) {
            const row = document.createElement("tr");
            row.dataset.stub = stub.id;
            const missed = stub.required && stub.hits === 0;
            cell(row, stub.id + (missed ? " (required, not hit)" : ""), missed ? "missed-required" : null);
            cell(row, (stub.method || "ANY") + " " + (stub.url || stub.urlPath || stub.urlPathTemplate || stub.urlPathPattern || "any"));
            cell(row, stub.hits);
            body.appendChild(row);
          }
        }
        async function tick() {
          try { await pollRequests(); await pollSelectedWebSocket(); await pollStubs(); $("status").textContent = "live"; }
          catch (error) { $("status").textContent = "disconnected: " + error; }
          setTimeout(tick, 500);
        }
        for (const id of ["filter-stub", "filter-status", "filter-path"]) $(id).addEventListener("input", render);
        tick();
        </script>
        </body>
        </html>
        """#
}
