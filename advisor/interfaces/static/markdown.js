/* A tiny Markdown renderer that is safe by construction: the whole text is HTML-escaped
   first, then only headings, bold, inline code, code blocks, lists, tables, quotes and
   http(s) links are rebuilt as tags. Nothing from the answer can become markup or script. */
(function (root) {
  "use strict";

  const SLOT = "\u0000"; // marks code spans while other inline rules run; stripped from input

  function escapeHtml(text) {
    return String(text)
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&#39;");
  }

  // Input is already escaped, so a URL cannot contain a quote and break out of href.
  function inline(escaped) {
    const codes = [];
    let text = escaped.replace(/`([^`]+)`/g, function (_, code) {
      codes.push(code);
      return SLOT + (codes.length - 1) + SLOT;
    });
    text = text.replace(/\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g, function (_, label, url) {
      return '<a href="' + url + '" target="_blank" rel="noopener noreferrer">' + label + "</a>";
    });
    text = text.replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>");
    return text.replace(new RegExp(SLOT + "(\\d+)" + SLOT, "g"), function (_, i) {
      return "<code>" + codes[Number(i)] + "</code>";
    });
  }

  const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
  const BULLET_ITEM = /^\s*([-*+])\s+(.*)$/;
  const ORDERED_ITEM = /^\s*(\d+[.)])\s+(.*)$/;
  const LIST_ITEM = /^\s*([-*+]|\d+[.)])\s+(.*)$/;
  const QUOTE = /^&gt;\s?(.*)$/;

  // A cell that is one figure ("16.06 GB", "$316,250", "-0.02 GB", "24.7%", "1,794,617 卡时") never wraps.
  const FIGURE = /^[-\u2212+≈~$¥]*\d[\d.,]*(e[+-]?\d+)?(\s|\u00a0)?(%|[A-Za-z\u4e00-\u9fff/·-]{0,12})$/;

  function cells(line, tag) {
    const parts = line.trim().replace(/^\|/, "").replace(/\|$/, "").split("|");
    return "<tr>" + parts.map(function (c) {
      const open = tag === "td" && FIGURE.test(c.trim()) ? '<td class="num">' : "<" + tag + ">";
      return open + inline(c.trim()) + "</" + tag + ">";
    }).join("") + "</tr>";
  }

  // Consume consecutive lines matching `pattern` from index i; returns [matches, next index].
  function takeWhile(lines, i, pattern) {
    const found = [];
    let m;
    while (i < lines.length && (m = pattern.exec(lines[i]))) {
      found.push(m);
      i++;
    }
    return [found, i];
  }

  function renderMarkdown(markdown) {
    const source = String(markdown == null ? "" : markdown).split(SLOT).join("").replace(/\r\n?/g, "\n");
    const lines = escapeHtml(source).split("\n");
    const out = [];
    let paragraph = [];
    function flush() {
      if (paragraph.length) out.push("<p>" + paragraph.map(inline).join("<br>") + "</p>");
      paragraph = [];
    }
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      let m;
      if (/^\s*```/.test(line)) {
        flush();
        const code = [];
        i++;
        while (i < lines.length && !/^\s*```/.test(lines[i])) code.push(lines[i++]);
        out.push("<pre><code>" + code.join("\n") + "</code></pre>");
        i++;
      } else if ((m = /^(#{1,6})\s+(.*)$/.exec(line))) {
        flush();
        out.push("<h" + m[1].length + ">" + inline(m[2]) + "</h" + m[1].length + ">");
        i++;
      } else if (/^\s*\|/.test(line) && i + 1 < lines.length && TABLE_SEPARATOR.test(lines[i + 1])) {
        flush();
        const taken = takeWhile(lines, i + 2, /^\s*\|.*$/);
        const rows = taken[0].map(function (r) { return cells(r[0], "td"); });
        out.push("<table><thead>" + cells(line, "th") + "</thead><tbody>" + rows.join("") + "</tbody></table>");
        i = taken[1];
      } else if ((m = LIST_ITEM.exec(line))) {
        flush();
        const ordered = /\d/.test(m[1]);
        const taken = takeWhile(lines, i, ordered ? ORDERED_ITEM : BULLET_ITEM);
        const tag = ordered ? "ol" : "ul";
        out.push("<" + tag + ">" + taken[0].map(function (it) { return "<li>" + inline(it[2]) + "</li>"; }).join("") + "</" + tag + ">");
        i = taken[1];
      } else if (QUOTE.test(line)) {
        flush();
        const taken = takeWhile(lines, i, QUOTE);
        out.push("<blockquote>" + taken[0].map(function (q) { return inline(q[1]); }).join("<br>") + "</blockquote>");
        i = taken[1];
      } else {
        if (line.trim()) paragraph.push(line);
        else flush();
        i++;
      }
    }
    flush();
    return out.join("\n");
  }

  root.renderMarkdown = renderMarkdown;
  root.escapeHtml = escapeHtml;
  if (typeof module === "object" && module.exports) module.exports = { renderMarkdown: renderMarkdown, escapeHtml: escapeHtml };
})(typeof window !== "undefined" ? window : globalThis);
