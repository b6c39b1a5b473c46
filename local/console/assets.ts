import { createHash } from 'node:crypto';

/**
 * The console's stylesheet and its one small script, served as files (GET /console/...):
 * the page's Content-Security-Policy allows no inline script or style. The script is
 * only a convenience; every action is a plain form that works without it.
 */
export const consoleScript = `'use strict';
// Opens the chosen tool's (or trigger's) form as soon as it is picked, and asks before redriving everything.
// Shows every time in the reader's own zone, named; keeps the events live (see below).
document.addEventListener('DOMContentLoaded', function () {
  ['tool-pick', 'subscribe-pick'].forEach(function (id) {
    var pick = document.getElementById(id);
    if (pick) pick.addEventListener('change', function () { if (pick.value) pick.form.submit(); });
  });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (e) { if (!window.confirm(form.getAttribute('data-confirm'))) e.preventDefault(); });
  });
  // The server writes times in UTC, marked so; here they become the reader's local time with its zone.
  function localTimes(root) {
    root.querySelectorAll('time[datetime]').forEach(function (t) {
      var d = new Date(t.getAttribute('datetime'));
      if (isNaN(d.getTime())) return;
      t.title = t.getAttribute('datetime');
      t.textContent = d.toLocaleString(undefined, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZoneName: 'short' });
    });
  }
  localTimes(document);
  // Live updates: the rows of the events table fetched again every few seconds while "live" is
  // ticked and the page is seen; one request at a time, each cut off after 4 s; at most for an hour.
  var live = document.getElementById('live');
  var list = document.getElementById('events-list');
  if (!live || !list) return;
  var every = Number(live.getAttribute('data-every')) || 5000;
  var left = Math.floor(3600000 / every);
  var busy = false;
  function openDetails() {
    var open = [];
    list.querySelectorAll('details[open]').forEach(function (d) {
      var row = d.closest('tr');
      var index = Array.prototype.indexOf.call(row.querySelectorAll('details'), d);
      open.push([row.getAttribute('data-event-detail'), index]);
    });
    return open;
  }
  function reopen(open) {
    open.forEach(function (o) {
      list.querySelectorAll('tr[data-event-detail]').forEach(function (row) {
        if (row.getAttribute('data-event-detail') !== o[0]) return;
        var d = row.querySelectorAll('details')[o[1]];
        if (d) d.open = true;
      });
    });
  }
  function tick() {
    if (!live.checked || document.hidden || busy) return;
    if (left-- <= 0) { live.checked = false; return; }
    busy = true;
    var controller = new AbortController();
    var timer = setTimeout(function () { controller.abort(); }, 4000);
    fetch(live.getAttribute('data-src'), { credentials: 'same-origin', headers: { accept: 'text/html' }, signal: controller.signal })
      .then(function (r) { if (!r.ok) throw new Error('HTTP ' + r.status); return r.text(); })
      .then(function (html) {
        var open = openDetails();
        list.innerHTML = html;
        reopen(open);
        localTimes(list);
        list.setAttribute('data-updated', String(Date.now()));
      })
      .catch(function () { /* the next tick tries again */ })
      .then(function () { clearTimeout(timer); busy = false; });
  }
  setInterval(tick, every);
});
`;

export const consoleStyle = `body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header{display:flex;align-items:center;justify-content:space-between;background:#24292f;color:#fff;padding:.6rem 1.2rem}
header h1{font-size:1.1rem;margin:0}header form{margin:0}header a{color:#fff}
main{max-width:78rem;margin:0 auto;padding:1rem 1.2rem}
section{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:.8rem 1rem;margin:0 0 1rem}
h2{font-size:1rem;margin:.2rem 0 .6rem}h2 small{font-weight:normal;color:#57606a}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-top:1px solid #eaeef2;vertical-align:top}
th{font-weight:600;color:#57606a;border-top:none}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f6f8fa;padding:.5rem;overflow:auto;max-height:24rem;margin:.3rem 0}
.badge{display:inline-block;padding:0 .45rem;border-radius:1rem;font-size:12px;background:#eaeef2}
.s-delivered,.s-connected,.ok{background:#dafbe1;color:#116329}.s-dead_lettered,.s-refused,.s-reconnect_required,.bad{background:#ffebe9;color:#a40e26}
.s-retrying,.s-queued,.s-delivering{background:#fff8c5;color:#7d4e00}
button{font:inherit;padding:.25rem .7rem;border:1px solid #d0d7de;border-radius:6px;background:#f6f8fa;cursor:pointer}
button.primary{background:#1f883d;border-color:#1a7f37;color:#fff}
input[type=text],input[type=number],input[type=password],select,textarea{font:inherit;padding:.25rem .4rem;border:1px solid #d0d7de;border-radius:6px;min-width:18rem}
textarea{width:100%;min-height:4rem;font:12px ui-monospace,monospace}
.field{margin:.5rem 0}.field label{display:block;font-weight:600}.field small{display:block;color:#57606a}
.notice{padding:.5rem .8rem;border-radius:6px;margin:0 0 1rem}.muted{color:#57606a}
.login{max-width:24rem;margin:5rem auto}form.inline{display:inline;margin:0}
.wide{overflow-x:auto}.pager{display:flex;gap:1rem;margin:.5rem 0 0}.live{font-size:12px;font-weight:normal;margin-left:.5rem}
.filters{display:flex;flex-wrap:wrap;gap:.4rem .8rem;align-items:flex-end;margin:.4rem 0 .6rem}
.filters label{display:flex;flex-direction:column;font-size:12px;color:#57606a}
.filters input[type=text],.filters select{min-width:10rem}
small.why{color:#7d4e00}table.attempts{font-size:12px}
.s-replayed,.s-settled,.s-logged{background:#ddf4ff;color:#0550ae}
details.act{margin:.6rem 0 0}details.act>summary{cursor:pointer;font-weight:600;color:#0969da}
small.field-error{display:block;color:#a40e26}[aria-invalid=true]{border-color:#cf222e}
fieldset.field{border:1px solid #d0d7de;border-radius:6px;padding:.3rem .6rem}fieldset.field legend{font-weight:600}
label.check{display:block;font-weight:normal}code.webhook-url,td code{word-break:break-all}td.actions{white-space:nowrap}
#new-key-secret{width:100%;box-sizing:border-box;font:12px ui-monospace,monospace}
@media (max-width:720px){
header{flex-wrap:wrap;gap:.4rem}main{padding:.5rem}section{padding:.6rem;overflow-x:auto}
input[type=text],input[type=number],input[type=password],select,textarea{min-width:0;width:100%;box-sizing:border-box}
.filters input[type=text],.filters select{min-width:0}.filters label{flex:1 1 100%}
#events-table thead{display:none}
#events-table>tbody>tr,#events-table>tbody>tr>td{display:block;border:none;padding:.1rem .3rem}
#events-table>tbody>tr[data-event]{border-top:1px solid #d0d7de;padding-top:.4rem}
code{word-break:break-all}pre{white-space:pre-wrap;word-break:break-all}
}
`;

const sri = (text: string) => `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
export const consoleScriptIntegrity = sri(consoleScript);
export const consoleStyleIntegrity = sri(consoleStyle);
