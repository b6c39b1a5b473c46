// The simulated partner API is product code of the sandbox (`npm run dev`); tests use the same one under their own names.
export {
  defaultMe,
  simulatedSnareSeed as fakeSnareSeed,
  SimulatedSnareApi as FakeSnareApi,
  type Answer,
  type Json,
  type SimulatedSnareState as FakeSnareState,
} from '../../local/sandbox/contentsnare/simulated-contentsnare-api';
