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
.notice{color:#176d3d}
.quorum,.signed{font-weight:600;color:#6b4b00}
table.audit{border-collapse:collapse;width:100%;font-size:.85rem}
table.audit td,table.audit th{border-bottom:1px solid #dde;padding:.25rem .4rem;text-align:left}
ol.conversation li{margin:.3rem 0}
`;

// Live updates: reload the page when the run moves (events from /api/runs/:id/events).
export const RUN_JS = `
(function(){var m=document.getElementById('run');if(!m||!window.EventSource)return;
var es=new EventSource('/api/runs/'+encodeURIComponent(m.dataset.run)+'/events?after='+encodeURIComponent(m.dataset.after||'0'));
var t;es.onmessage=function(){clearTimeout(t);t=setTimeout(function(){es.close();location.reload();},300);};
es.addEventListener('ended',function(){es.close();});})();
`;
