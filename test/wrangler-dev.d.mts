export function freePort(): Promise<number>;
export function startService(label: string, options?: { script?: string; vars?: string[] }): Promise<{ url: string; adminToken: string; stop: () => Promise<void> }>;
