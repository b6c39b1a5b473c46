// The agent runtime stand-in of bench/tenants.ts, in a thread of its own (agent-runtime-thread.ts):
// answers each event by its agent's behaviour and reports when each POST arrived, timed here.
import { createServer } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { slowAnswerMs, failingRetryAfterSeconds } = workerData;
const behaviours = new Map();
/** Arrivals not yet reported: [event id, arrived at (ms since the epoch)]. */
let unreported = [];

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const how = behaviours.get(event.agentId) ?? 'quick';
    if (how === 'failing') {
      res.writeHead(503, { 'retry-after': String(failingRetryAfterSeconds) }).end();
      return;
    }
    unreported.push([event.id, Date.now()]);
    setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), how === 'slow' ? slowAnswerMs : 0);
  });
});

const report = () => {
  if (unreported.length === 0) return;
  parentPort.postMessage({ type: 'arrivals', list: unreported });
  unreported = [];
};
const reporting = setInterval(report, 50);

parentPort.on('message', (m) => {
  if (m.type === 'behave') behaviours.set(m.agentId, m.how);
  if (m.type === 'close') {
    clearInterval(reporting);
    report();
    server.closeAllConnections();
    server.close(() => parentPort.postMessage({ type: 'closed' }));
  }
});

server.listen(0, '127.0.0.1', () => parentPort.postMessage({ type: 'listening', port: server.address().port }));
