// The board's script. The server renders the page (page.html) and every live update; this script
// signs in, follows /events (server-sent events; /api/monitors where a browser has none), puts
// each update's server-rendered cards in place, sends an answer without a reload, and keeps the
// "ago" times current. Without a session it shows the sign-in form: the person's token goes once,
// in an Authorization header of a POST to login (never in a URL, never kept in the page or its
// storage); the answer is a short-lived session cookie the event stream then carries.
"use strict";
(function () {
  var root = document.getElementById("monitors");
  var live = document.getElementById("live");
  var form = document.getElementById("signin");
  var input = document.getElementById("token");
  var formError = document.getElementById("signin-error");
  var signoutForm = document.getElementById("signout-form");
  var legend = document.getElementById("legend");
  var es = null;

  function agoText(iso) {
    var s = Math.round((Date.now() - Date.parse(iso)) / 1000);
    if (!isFinite(s)) { return ""; }
    if (s < 10) { return "just now"; }
    if (s < 90) { return s + " s ago"; }
    if (s < 5400) { return Math.round(s / 60) + " min ago"; }
    if (s < 129600) { return Math.round(s / 3600) + " h ago"; }
    return Math.round(s / 86400) + " days ago";
  }

  function refreshTimes() {
    var ts = root.querySelectorAll("time[data-ago]");
    for (var i = 0; i < ts.length; i++) { ts[i].textContent = agoText(ts[i].getAttribute("datetime")); }
  }
  setInterval(refreshTimes, 10000);

  function state(s, text) { live.dataset.state = s; live.textContent = text; }

  // apply puts a view in place. Its cards are the server's HTML (html/template escaped GitHub's
  // text there); the element that had the keyboard's focus gets it back.
  function apply(v) {
    document.getElementById("user").textContent = v.user ? "signed in as " + v.user : "";
    document.getElementById("budget").textContent = v.budget || "";
    var focused = document.activeElement, key = null;
    if (focused && root.contains(focused)) {
      var card = focused.closest("[data-monitor]");
      key = { monitor: card ? card.dataset.monitor : null, tag: focused.tagName, value: focused.value || "" };
    }
    root.innerHTML = v.html;
    refreshTimes();
    if (key && key.monitor) {
      var cards = root.querySelectorAll("[data-monitor]");
      for (var i = 0; i < cards.length; i++) {
        if (cards[i].dataset.monitor !== key.monitor) { continue; }
        var els = cards[i].querySelectorAll(key.tag);
        for (var j = 0; j < els.length; j++) { if ((els[j].value || "") === key.value) { els[j].focus(); break; } }
      }
    }
  }

  function signedOut() {
    if (es) { es.close(); es = null; }
    form.hidden = false;
    signoutForm.hidden = true;
    root.hidden = true;
    legend.hidden = true;
    root.innerHTML = "";
    document.getElementById("user").textContent = "";
    document.getElementById("budget").textContent = "";
    state("signed-out", "not signed in");
    input.focus();
  }

  function signedIn() {
    form.hidden = true;
    signoutForm.hidden = false;
    root.hidden = false;
    legend.hidden = false;
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
        apply(v);
        follow();
      })
      .catch(function () { state("retrying", "reconnecting…"); setTimeout(start, 5000); });
  }

  function follow() {
    if (!window.EventSource) { state("live", "updated " + new Date().toLocaleTimeString()); setTimeout(start, 5000); return; }
    if (es) { es.close(); }
    es = new EventSource("events");
    es.addEventListener("view", function (e) { apply(JSON.parse(e.data)); state("live", "live"); });
    es.addEventListener("unavailable", function () { state("retrying", "monitors unavailable, retrying…"); });
    es.onerror = function () {
      state("retrying", "reconnecting…");
      if (es && es.readyState === EventSource.CLOSED) { es = null; setTimeout(start, 3000); } // the session may have ended
    };
  }

  // An answer: the choice pressed, sent with the form's monitor, question and token.
  root.addEventListener("submit", function (e) {
    var f = e.target;
    if (!f.classList || !f.classList.contains("question")) { return; }
    e.preventDefault();
    var choice = e.submitter && e.submitter.name === "choice" ? e.submitter.value : "";
    if (!choice) { return; }
    var body = new URLSearchParams(new FormData(f));
    body.set("choice", choice);
    var status = f.querySelector(".answer-status");
    var buttons = f.querySelectorAll("button");
    for (var i = 0; i < buttons.length; i++) { buttons[i].disabled = true; }
    status.className = "answer-status";
    status.textContent = "Sending your answer…";
    fetch("answer", { method: "POST", cache: "no-store", credentials: "same-origin", body: body,
      headers: { "Accept": "application/json" } })
      .then(function (r) { return r.json().catch(function () { return { ok: false, message: "Could not send the answer (" + r.status + ")." }; }); })
      .then(function (a) {
        status.textContent = a.message;
        if (!a.ok) {
          status.className = "answer-status refused";
          for (var i = 0; i < buttons.length; i++) { buttons[i].disabled = false; }
        }
      })
      .catch(function () {
        status.className = "answer-status refused";
        status.textContent = "Could not reach the server; nothing was sent.";
        for (var i = 0; i < buttons.length; i++) { buttons[i].disabled = false; }
      });
  });

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

  signoutForm.addEventListener("submit", function (e) {
    e.preventDefault();
    fetch("logout", { method: "POST", cache: "no-store", credentials: "same-origin" }).then(signedOut, signedOut);
  });

  if (form.hidden) {
    refreshTimes();
    follow(); // the server rendered the signed-in page: follow it from here
  } else {
    start(); // a session the server did not see (a cookie set since) is found here
  }
})();
