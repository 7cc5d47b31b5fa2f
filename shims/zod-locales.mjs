// zod's locales, English only (shims/README.md).
export { default as en } from "zod/v4/locales/en.js";
