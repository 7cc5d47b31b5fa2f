export function databaseNames(dir: string): string[];
export function migrateLocally(wrangler: string, dir: string, env: NodeJS.ProcessEnv, extra?: string[], stdio?: "pipe" | "inherit"): void;
export function migrateInProcess(dir: string, persistTo: string): Promise<void>;
