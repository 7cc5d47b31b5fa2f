export function workerSecrets(kid?: string): Record<string, string>;
export function generatedSecrets(): Record<string, string>;
export function secretVarArgs(prefix?: string): string[];
export function newWebhookSecretKey(): string;
export function newHmacSecret(): string;
export function newLogKey(): string;
export function newLogSigningKeys(): string;
