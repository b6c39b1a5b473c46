// The OpenAPI-checked code host is product code of the sandbox (`npm run dev`); tests use the same one under their own names.
export {
  checkAgainstOpenApi,
  startOpenApiSimulatedGitHub as startOpenApiFakeGitHub,
  type MatchedRequest,
  type OpenApiSimulatedGitHub as OpenApiFakeGitHub,
  type OperationResponder,
} from '../../local/sandbox/github/openapi-check';
