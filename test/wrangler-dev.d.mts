export function freePort(): Promise<number>;
export function startService(label: string): Promise<{ url: string; adminToken: string; stop: () => Promise<void> }>;
