// One structured log line (Workers Logs indexes the JSON's fields).
export function log(level: "error" | "info" | "warn", message: string, fields: Record<string, unknown>) {
  console[level](JSON.stringify({ level, message, ...fields }));
}
