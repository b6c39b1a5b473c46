import { createHash } from 'node:crypto';

/**
 * The console's stylesheet and its one small script, served as files (GET /console/...):
 * the page's Content-Security-Policy allows no inline script or style. The script is
 * only a convenience; every action is a plain form that works without it.
 */
export const consoleScript = `'use strict';
// Opens the chosen tool's form as soon as it is picked, and asks before redriving everything.
document.addEventListener('DOMContentLoaded', function () {
  var pick = document.getElementById('tool-pick');
  if (pick) pick.addEventListener('change', function () { pick.form.submit(); });
  document.querySelectorAll('form[data-confirm]').forEach(function (form) {
    form.addEventListener('submit', function (e) { if (!window.confirm(form.getAttribute('data-confirm'))) e.preventDefault(); });
  });
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
`;

const sri = (text: string) => `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
export const consoleScriptIntegrity = sri(consoleScript);
export const consoleStyleIntegrity = sri(consoleStyle);
