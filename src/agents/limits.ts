// Bounds of an agent request, in one place.

/** A request, as JSON, in bytes; larger is refused before anything runs. */
export const MAX_REQUEST_BYTES = 64 * 1024;
export const MAX_TURNS = 1000;
export const DEFAULT_MAX_TURNS = 100;
export const MIN_REQUEST_TIMEOUT_SECONDS = 1;
export const MAX_REQUEST_TIMEOUT_SECONDS = 86_400;
export const DEFAULT_REQUEST_TIMEOUT_SECONDS = 1800;
/** A credential read from a secrets file; anything longer is not a credential. */
export const MAX_CREDENTIAL_BYTES = 64 * 1024;
/** Retries of a failed API call by the CLI itself, unless the Operator says otherwise. */
export const DEFAULT_API_RETRIES = 2;
export const MAX_API_RETRIES = 10;
