// The simulated code host is product code of the sandbox (`npm run dev`); tests use the same one under their own names.
export {
  SimulatedGitHub as FakeGitHub,
  type SimulatedDelivery as FakeDelivery,
  type SimulatedHook as FakeHook,
  type SimulatedUser as FakeUser,
} from '../../local/sandbox/github/simulated-github';
