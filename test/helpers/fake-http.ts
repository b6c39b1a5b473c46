// The loopback server lives with the sandbox (`npm run dev`); tests use the same one under their own names.
export {
  startSimulatedHttp as startFakeHttp,
  start,
  type RecordedRequest,
  type SimulatedHandler as FakeHandler,
  type SimulatedResponse as FakeResponse,
  type SimulatedServer as FakeServer,
} from '../../local/sandbox/simulated-http';
