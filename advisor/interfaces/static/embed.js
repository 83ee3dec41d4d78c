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
  // An optional API token travels in the URL fragment (#token=...), which browsers never send to servers.
  const token = new URLSearchParams(location.hash.slice(1)).get("token");

  function bubble(className) {
    const div = document.createElement("div");
    div.className = "msg " + className;
    log.appendChild(div);
    log.scrollTop = log.scrollHeight;
    return div;
  }

  function firstWebLink(urls) {
    return (urls || []).find(function (u) { return /^https?:\/\//i.test(u); });
  }

  function sourcesHtml(sources) {
    if (!sources || !sources.length) return "";
    const items = sources.map(function (s) {
      const label = escapeHtml(s.title + (s.section ? " — " + s.section : ""));
      const url = firstWebLink(s.urls);
      return "<li>" + (url ? '<a href="' + escapeHtml(url) + '" target="_blank" rel="noopener noreferrer">' + label + "</a>" : label) + "</li>";
    });
    const summary = escapeHtml(page.sourcesLabel) + " (" + sources.length + ")";
    return '<details class="sources"><summary>' + summary + "</summary><ul>" + items.join("") + "</ul></details>";
  }

  function errorText(data, status) {
    const error = data && data.error;
    if (error && (error[page.lang] || error.en)) return error[page.lang] || error.en;
    return page.errorLabel + " (HTTP " + status + ")";
  }

  async function ask(text) {
    bubble("user").textContent = text;
    const reply = bubble("assistant pending");
    reply.textContent = page.thinking;
    submit.disabled = true;
    try {
      const headers = { "Content-Type": "application/json" };
      if (token) headers.Authorization = "Bearer " + token;
      const response = await fetch(page.api, {
        method: "POST",
        headers: headers,
        body: JSON.stringify({ message: text, history: history.slice(-MAX_TURNS) }),
      });
      const data = await response.json().catch(function () { return null; });
      if (!response.ok || !data) throw new Error(errorText(data, response.status));
      reply.className = "msg assistant";
      reply.innerHTML = renderMarkdown(data.answer) + sourcesHtml(data.sources);
      history.push({ role: "user", content: text }, { role: "assistant", content: data.answer });
    } catch (err) {
      reply.className = "msg assistant error";
      reply.textContent = err.message || String(err);
    } finally {
      submit.disabled = false;
      log.scrollTop = log.scrollHeight;
      input.focus();
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
  });
})();
