/* Chat logic of the wiki embed. The page keeps the conversation and sends it as `history`
   on every request (the server is stateless). Answers go through renderMarkdown, which
   escapes everything first; user text is only ever set with textContent. */
(function () {
  "use strict";
  const page = document.body.dataset;
  const log = document.getElementById("log");
  const form = document.getElementById("ask");
  const input = document.getElementById("message");
  const submit = form.querySelector("button[type=submit]");
  const MAX_TURNS = 20; // keeps the request well under the server's body limit
  const history = [];
  // The embed key travels in the URL fragment (#key=...), which browsers never send to servers. It is
  // not the admin token: it only opens this chat, with its own rate limit, from the allowed wikis.
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  // Refusals a wiki reader cannot fix: shown in both languages, with no developer jargon.
  const READER_ERRORS = ["embed_key_invalid", "embed_origin_refused"];

  function headers() {
    const h = { "Content-Type": "application/json" };
    if (key) h["X-Embed-Key"] = key;
    return h;
  }

  function unavailable(text) {
    const note = bubble("assistant error");
    note.textContent = text;
    input.disabled = true;
    submit.disabled = true;
  }

  function bubble(className) {
    const div = document.createElement("div");
    div.className = "msg " + className;
    log.appendChild(div);
    log.scrollTop = log.scrollHeight;
    return div;
  }

  function errorText(data, status) {
    const error = data && data.error;
    if (error && READER_ERRORS.indexOf(error.code) >= 0) {
      const other = page.lang === "zh" ? "en" : "zh";
      return error[page.lang] + "\n" + error[other];
    }
    if (error && (error[page.lang] || error.en)) return error[page.lang] || error.en;
    return page.errorLabel + " (HTTP " + status + ")";
  }

  async function ask(text) {
    bubble("user").textContent = text;
    const reply = bubble("assistant pending");
    reply.textContent = page.thinking;
    submit.disabled = true;
    try {
      const response = await fetch(page.api, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify({ message: text, history: history.slice(-MAX_TURNS) }),
      });
      const data = await response.json().catch(function () { return null; });
      if (!response.ok || !data) throw new Error(errorText(data, response.status));
      reply.className = "msg assistant";
      // The verdict first; formula tables, defaults and sources folded below it (the answer carries its own sources).
      reply.innerHTML = renderMarkdown(data.summary || data.answer);
      if (data.summary && data.details) {
        const more = document.createElement("details");
        const label = document.createElement("summary");
        label.textContent = data.language === "zh" ? "细节：公式、默认值与来源" : "Details: formulas, defaults, sources";
        const body = document.createElement("div");
        body.innerHTML = renderMarkdown(data.details);
        more.append(label, body);
        reply.append(more);
      }
      const earlier = history.slice(-MAX_TURNS);
      history.push({ role: "user", content: text }, { role: "assistant", content: data.answer });
      if (data.tool_calls && data.tool_calls.length) proposalButton(reply, text, earlier);
    } catch (err) {
      reply.className = "msg assistant error";
      reply.textContent = err.message || String(err);
    } finally {
      submit.disabled = false;
      log.scrollTop = log.scrollHeight;
      input.focus();
    }
  }

  // Under an answer that calculated something: the conversation so far as a procurement proposal (PDF).
  function proposalButton(reply, text, earlier) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "proposal";
    button.textContent = page.proposalLabel;
    button.addEventListener("click", async function () {
      button.disabled = true;
      try {
        const response = await fetch(page.proposal, {
          method: "POST",
          headers: headers(),
          body: JSON.stringify({ message: text, history: earlier, format: "pdf" }),
        });
        if (!response.ok) {
          const data = await response.json().catch(function () { return null; });
          throw new Error(errorText(data, response.status));
        }
        const link = document.createElement("a");
        link.href = URL.createObjectURL(await response.blob());
        link.download = "proposal.pdf";
        link.click();
        setTimeout(function () { URL.revokeObjectURL(link.href); }, 60000);
      } catch (err) {
        bubble("assistant error").textContent = err.message || String(err);
      } finally {
        button.disabled = false;
      }
    });
    reply.appendChild(button);
  }

  async function checkKey() {
    if (page.keyRequired !== "true") return;
    if (!key) {
      unavailable(page.noKey);
      return;
    }
    try {
      const response = await fetch(page.check, { method: "POST", headers: headers(), body: "{}" });
      if (response.ok) return;
      const data = await response.json().catch(function () { return null; });
      if (response.status === 401 || response.status === 403) unavailable(errorText(data, response.status));
    } catch (err) {
      // offline or server down: the first question will say so
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    const text = input.value.trim();
    if (!text || submit.disabled) return;
    input.value = "";
    ask(text);
  });
  input.addEventListener("keydown", function (event) {
    // Enter sends, Shift+Enter adds a line; never while an IME (pinyin) is composing.
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  document.getElementById("new-chat").addEventListener("click", function () {
    history.length = 0;
    log.replaceChildren();
    input.focus();
    checkKey();
  });
  checkKey();
})();
