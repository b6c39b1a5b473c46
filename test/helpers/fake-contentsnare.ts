// The simulated collection service is product code of the sandbox (`npm run dev`); tests use the same one under their own names.
export {
  defaultMe,
  simulatedSnareSeed as fakeSnareSeed,
  startSimulatedContentSnare as startFakeContentSnare,
  type ScriptedAnswer,
  type SimulatedContentSnare as FakeContentSnare,
  type SimulatedContentSnareOptions as FakeContentSnareOptions,
  type SimulatedKind as FakeKind,
  type SimulatedLogEntry as FakeLogEntry,
} from '../../local/sandbox/contentsnare/simulated-contentsnare';
