// The board's script: it reads the view from /events (server-sent events), or polls
// /api/monitors where a browser has no EventSource, and renders it with text nodes only. Without a
// session it shows the sign-in form: the person's token goes once, in an Authorization header of
// a POST to login (never in a URL, never kept in the page or its storage); the answer is a
// short-lived session cookie the event stream then carries.
"use strict";
(function () {
  var root = document.getElementById("monitors");
  var live = document.getElementById("live");
  var form = document.getElementById("signin");
  var input = document.getElementById("token");
  var formError = document.getElementById("signin-error");
  var signout = document.getElementById("signout");
  var es = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function ago(iso) {
    if (!iso) { return ""; }
    var s = Math.round((Date.now() - Date.parse(iso)) / 1000);
    if (!isFinite(s) || s < 0) { return ""; }
    if (s < 90) { return s + " s ago"; }
    if (s < 5400) { return Math.round(s / 60) + " min ago"; }
    return Math.round(s / 3600) + " h ago";
  }

  // GitHub's text arrives fenced for models ("<<<untrusted GitHub text ID: ...>>>", the text,
  // "<<<end untrusted GitHub text ID>>>", on lines of their own); a person sees the same fence as a
  // labelled box around the text.
  var fence = /^<<<untrusted GitHub text ([0-9A-Za-z]+): [^\n]*>>>\n([\s\S]*)\n<<<end untrusted GitHub text \1>>>$/;
  function github(tag, cls, text) {
    var m = fence.exec(text || "");
    return el(tag, cls + " gh", m ? m[2] : text);
  }

  var waits = { user: "waits on you", agent: "waits on the agent", github: "watching GitHub", nobody: "ended" };

  function card(m) {
    var c = el("article", "card");
    c.dataset.monitor = m.monitor_id;
    var pr = el("div", "pr");
    if (m.url && /^https:\/\//.test(m.url)) {
      var a = el("a", "", m.pr);
      a.href = m.url;
      a.rel = "noreferrer noopener";
      pr.appendChild(a);
    } else {
      pr.textContent = m.pr;
    }
    c.appendChild(pr);
    if (m.title) { c.appendChild(github("span", "title", m.title)); }
    var row = el("div", "row");
    row.appendChild(el("span", "who " + (m.waiting_on || ""), waits[m.waiting_on] || m.waiting_on));
    row.appendChild(el("span", "state", (m.state || "").replace(/_/g, " ")));
    if (m.attention) { row.appendChild(el("span", "attention", m.attention)); }
    if (m.task) { row.appendChild(el("span", "task", "task: " + m.task.replace(/_/g, " "))); }
    c.appendChild(row);
    if (m.question) {
      var q = el("div", "question");
      q.appendChild(el("div", "qtext", m.question.question));
      var ul = el("ul", "choices");
      (m.question.choices || []).forEach(function (ch) { ul.appendChild(el("li", "", ch.label || ch.value)); });
      q.appendChild(ul);
      c.appendChild(q);
    }
    if (m.last_event && m.last_event.what) {
      c.appendChild(el("div", "event", "Last: " + m.last_event.what + " · " + ago(m.last_event.at)));
    }
    if (m.last_error) { c.appendChild(el("div", "error", m.last_error)); }
    return c;
  }

  function render(v) {
    document.getElementById("user").textContent = v.user ? "signed in as " + v.user : "";
    var b = v.budget;
    document.getElementById("budget").textContent = b ? "token budget: " + b.remaining + " of " + b.limit + " points left this hour" : "";
    while (root.firstChild) { root.removeChild(root.firstChild); }
    var ms = v.monitors || [];
    if (ms.length === 0) { root.appendChild(el("p", "empty", "No monitors yet.")); }
    ms.forEach(function (m) { root.appendChild(card(m)); });
    if (v.omitted) { root.appendChild(el("p", "empty", v.omitted + " more not shown")); }
  }

  function state(s, text) { live.dataset.state = s; live.textContent = text; }

  function signedOut() {
    if (es) { es.close(); es = null; }
    form.hidden = false;
    signout.hidden = true;
    root.hidden = true;
    document.getElementById("user").textContent = "";
    state("connecting", "not signed in");
    input.focus();
  }

  function signedIn() {
    form.hidden = true;
    signout.hidden = false;
    root.hidden = false;
    formError.textContent = "";
  }

  // start reads the view once (which says whether this browser is signed in), then follows it.
  function start() {
    fetch("api/monitors", { cache: "no-store", credentials: "same-origin" })
      .then(function (r) {
        if (r.status === 401) { signedOut(); return null; }
        if (!r.ok) { throw new Error(r.status); }
        return r.json();
      })
      .then(function (v) {
        if (!v) { return; }
        signedIn();
        render(v);
        follow();
      })
      .catch(function () { state("retrying", "reconnecting…"); setTimeout(start, 5000); });
  }

  function follow() {
    if (!window.EventSource) { state("live", "updated " + new Date().toLocaleTimeString()); setTimeout(start, 5000); return; }
    es = new EventSource("events");
    es.addEventListener("view", function (e) { render(JSON.parse(e.data)); state("live", "live"); });
    es.addEventListener("unavailable", function () { state("retrying", "monitors unavailable, retrying…"); });
    es.onerror = function () {
      state("retrying", "reconnecting…");
      if (es && es.readyState === EventSource.CLOSED) { es = null; setTimeout(start, 3000); } // the session may have ended
    };
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var token = input.value.trim();
    input.value = "";
    if (!token) { return; }
    fetch("login", { method: "POST", cache: "no-store", credentials: "same-origin", headers: { "Authorization": "Bearer " + token } })
      .then(function (r) {
        if (r.status === 204) { start(); return; }
        formError.textContent = r.status === 401 ? "That token is not one this deployment knows." : "Could not sign in (" + r.status + ").";
      })
      .catch(function () { formError.textContent = "Could not reach the server."; });
  });

  signout.addEventListener("click", function () {
    fetch("logout", { method: "POST", cache: "no-store", credentials: "same-origin" }).then(signedOut, signedOut);
  });

  start();
})();
