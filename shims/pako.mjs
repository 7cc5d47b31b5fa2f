// pako's deflate and inflate (zlib format), by workerd's own zlib (shims/README.md).
import { deflateSync, inflateSync } from "node:zlib";

export const deflate = (data, options = {}) => new Uint8Array(deflateSync(data, { level: options.level ?? 6 }));
export const inflate = (data) => new Uint8Array(inflateSync(data));
