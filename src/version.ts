import pkg from "../package.json";

/** The running service's version (package.json), shown by GET /health and the OpenAPI document. */
export const SERVICE_VERSION: string = pkg.version;
