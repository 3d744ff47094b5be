// The inbox's only stylesheet and script, served from this origin (the CSP allows nothing inline or elsewhere).
export const INBOX_CSS = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f7f9}
header{display:flex;justify-content:space-between;align-items:center;padding:.6rem 1.2rem;background:#1b1f24;color:#fff}
header a.brand{color:#fff;font-weight:700;text-decoration:none}
main{max-width:980px;margin:1rem auto;padding:0 1rem}
h1 small,h2 small{color:#667;font-weight:400}
article.call{background:#fff;border:1px solid #dde;border-radius:8px;padding:.8rem 1rem;margin:1rem 0}
article.call h2{margin:.1rem 0;font-size:1.1rem}
.meta{color:#556;font-size:.9rem}
pre{background:#f0f2f5;padding:.6rem;border-radius:6px;overflow:auto;white-space:pre-wrap;word-break:break-word}
.actions{display:flex;gap:.6rem;flex-wrap:wrap;align-items:center}
form{margin:.3rem 0}
form.reject input{min-width:18rem}
textarea{width:100%;font-family:ui-monospace,monospace}
button{padding:.35rem .9rem;border-radius:6px;border:1px solid #99a;background:#fff;cursor:pointer}
button.primary{background:#176d3d;color:#fff;border-color:#176d3d}
button.danger{background:#a61b1b;color:#fff;border-color:#a61b1b}
.error{color:#a61b1b;font-weight:600}
.stale{color:#a61b1b;font-weight:600}
.notice{color:#176d3d}
.quorum,.signed{font-weight:600;color:#6b4b00}
table.audit{border-collapse:collapse;width:100%;font-size:.85rem}
table.audit td,table.audit th{border-bottom:1px solid #dde;padding:.25rem .4rem;text-align:left}
ol.conversation li{margin:.3rem 0}
*,*::before,*::after{box-sizing:border-box}
body{overflow-wrap:anywhere}
header nav{display:flex;gap:1rem;margin-right:auto;margin-left:1.5rem}
header nav a{color:#dfe6ee}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #1f6feb;outline-offset:2px}
time{white-space:nowrap}
meter{width:4rem;vertical-align:middle}
dl.context{margin:.5rem 0;display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem}
dl.context dt{color:#556;font-size:.85rem;padding-top:.1rem}
dl.context dd{margin:0;white-space:pre-wrap}
dd.said{font-style:italic}
.preview{border-left:4px solid #c58a00;background:#fff8e6;padding:.1rem .8rem;margin:.5rem 0}
.preview.failed{border-color:#a61b1b;background:#fdeeee}
pre.commands span,pre.diff span{display:block;min-height:1.45em}
pre.diff{padding:.3rem 0}
pre.diff span{padding:0 .6rem}
pre.diff .added{background:#dcf5e3;color:#0f5326}
pre.diff .removed{background:#fbe1e1;color:#86181d}
pre.diff .hunk{color:#5a32a3}
p.file-op{margin:.5rem 0 .2rem}
.scroll{overflow-x:auto}
table.fields{border-collapse:collapse;margin:.4rem 0}
table.fields th,table.fields td{border:1px solid #dde;padding:.25rem .5rem;text-align:left;vertical-align:top}
table.fields th{background:#f0f2f5;font-weight:600}
table.fields td{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:.9rem}
details.json summary{cursor:pointer;color:#556;font-size:.85rem}
form.filter{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
form.filter label{display:flex;flex-direction:column;font-size:.8rem;color:#556}
input,select{font:inherit;padding:.3rem .4rem;border:1px solid #99a;border-radius:6px}
table.history{border-collapse:collapse;width:100%;font-size:.9rem;background:#fff}
table.history td,table.history th{border-bottom:1px solid #dde;padding:.35rem .5rem;text-align:left}
.outcome-approved,.outcome-auto_approved,.outcome-granted,.outcome-timed_out{color:#176d3d;font-weight:600}
.outcome-rejected,.outcome-auto_rejected,.outcome-expired{color:#a61b1b;font-weight:600}
@media (max-width:640px){
main{padding:0 .5rem}
header{padding:.6rem .8rem;flex-wrap:wrap}
header nav{margin-left:.8rem}
article.call{padding:.6rem .7rem}
button{min-height:44px;padding:.5rem 1rem}
.actions{flex-direction:column;align-items:stretch}
.actions form,.actions button{width:100%}
form.reject{display:flex;flex-direction:column;gap:.4rem}
form.reject input{min-width:0}
form.filter label,form.filter input,form.filter select,form.filter button{width:100%}
dl.context{grid-template-columns:1fr}
table.audit{display:block;overflow-x:auto}
table.history thead{display:none}
table.history tr{display:block;border-bottom:2px solid #dde;padding:.3rem 0}
table.history td{display:flex;gap:.6rem;border:0;padding:.15rem .3rem}
table.history td::before{content:attr(data-label);color:#667;min-width:5.5rem}
}
`;

// Live updates: reload the page when the run moves (events from /api/runs/:id/events).
export const RUN_JS = `
(function(){var m=document.getElementById('run');if(!m||!window.EventSource)return;
var es=new EventSource('/api/runs/'+encodeURIComponent(m.dataset.run)+'/events?after='+encodeURIComponent(m.dataset.after||'0'));
var t;es.onmessage=function(){clearTimeout(t);t=setTimeout(function(){es.close();location.reload();},300);};
es.addEventListener('ended',function(){es.close();});})();
`;
